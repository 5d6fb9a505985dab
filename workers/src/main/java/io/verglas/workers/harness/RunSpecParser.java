package io.verglas.workers.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.table.TableIdentifiers;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.QueueGrants;
import io.verglas.workers.event.CloudEventCodec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A {@link RunSpec} as JSON: what the harness writes to a run process's standard input
 * (secrets included, so never to a file or the command line). Versioned: {@value #VERSION}.
 */
final class RunSpecParser {
  static final int VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunSpecParser() {}

  static String toJson(RunSpec spec) {
    ObjectNode root = JSON.createObjectNode().put("version", VERSION)
        .put("identity", spec.identity()).put("event", CloudEventCodec.toJson(spec.event()))
        .put("runId", spec.runId()).put("attempt", spec.attempt());
    root.set("deployment", deployment(spec.deployment()));
    WorkerEndpoints e = spec.endpoints();
    root.putObject("endpoints").put("flight", e.flight().toString()).put("flightToken", e.flightToken())
        .put("query", e.query().toString()).put("queryToken", e.queryToken())
        .put("events", e.events() == null ? null : e.events().toString())
        .put("eventsToken", e.eventsToken()).put("commitTimeoutMs", e.commitTimeout().toMillis());
    if (e.queues() != null) {
      ObjectStoreEndpoint q = e.queues();
      root.putObject("queues").put("endpoint", q.endpoint().toString()).put("region", q.region())
          .put("accessKey", q.accessKey()).put("secretKey", q.secretKey()).put("bucket", q.bucket())
          .put("sessionToken", q.sessionToken());
    }
    return root.toString();
  }

  static RunSpec fromJson(String json) {
    try {
      JsonNode root = JSON.readTree(json);
      int version = root.path("version").asInt(-1);
      if (version != VERSION) {
        throw new IllegalArgumentException("Unknown run spec version: " + version);
      }
      JsonNode e = root.path("endpoints");
      String events = RunEventCodec.text(e, "events");
      WorkerEndpoints endpoints = new WorkerEndpoints(URI.create(e.path("flight").asText()),
          RunEventCodec.text(e, "flightToken"), URI.create(e.path("query").asText()), RunEventCodec.text(e, "queryToken"),
          events == null ? null : URI.create(events), RunEventCodec.text(e, "eventsToken"),
          Duration.ofMillis(e.path("commitTimeoutMs").asLong()),
          queues(root.path("queues")));
      return new RunSpec(deployment(root.path("deployment")), root.path("identity").asText(),
          CloudEventCodec.fromJson(root.path("event").asText()), root.path("runId").asText(),
          root.path("attempt").asInt(), endpoints);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read run spec: " + e.getMessage(), e);
    }
  }

  private static ObjectStoreEndpoint queues(JsonNode q) {
    return q.isObject() ? new ObjectStoreEndpoint(URI.create(q.path("endpoint").asText()),
        q.path("region").asText(), q.path("accessKey").asText(), q.path("secretKey").asText(),
        q.path("bucket").asText(), RunEventCodec.text(q, "sessionToken")) : null;
  }

  private static ObjectNode deployment(Deployment d) {
    ObjectNode node = JSON.createObjectNode().put("name", d.name())
        .put("jar", d.jar() == null ? null : d.jar().toString()).put("workerClass", d.workerClass())
        .put("timeoutMs", d.timeout().toMillis());
    node.set("config", JSON.valueToTree(d.config()));
    node.set("secrets", JSON.valueToTree(d.secrets()));
    node.set("outputs", JSON.valueToTree(d.outputs()));
    node.set("reads", names(d.grants().reads()));
    node.set("writes", names(d.grants().writes()));
    node.set("publish", JSON.valueToTree(d.grants().queues().publish()));
    node.set("consume", JSON.valueToTree(d.grants().queues().consume()));
    return node;
  }

  private static Deployment deployment(JsonNode node) {
    String jar = RunEventCodec.text(node, "jar");
    return new Deployment(node.path("name").asText(), jar == null ? null : Path.of(jar),
        node.path("workerClass").asText(), map(node.path("config")), map(node.path("secrets")),
        DataGrants.of(strings(node.path("reads")), strings(node.path("writes"))).withQueues(
            QueueGrants.of(strings(node.path("publish")), strings(node.path("consume")))),
        map(node.path("outputs")), Duration.ofMillis(node.path("timeoutMs").asLong()));
  }

  private static ArrayNode names(Collection<TableIdentifier> tables) {
    ArrayNode array = JSON.createArrayNode();
    tables.forEach(t -> array.add(TableIdentifiers.toString(t)));
    return array;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static Map<String, String> map(JsonNode object) {
    Map<String, String> out = new LinkedHashMap<>();
    object.fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue().asText()));
    return out;
  }
}
