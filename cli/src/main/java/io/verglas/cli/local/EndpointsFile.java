package io.verglas.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.workers.harness.WorkerEndpoints;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code endpoints.json}: how scripts and other tools find a running stack. Its shape is a
 * contract (keys may be added, never renamed):
 * {@code s3{endpoint,region,accessKey,secretKey,bucket}, flight{uri,token},
 * catalog{name,restUri,token,properties}, admin{uri,token}, events{uri}}. {@code admin.token} is
 * the admin endpoint's read token (for {@code /stats}, {@code GET /events}, {@code /maintenance}),
 * {@code catalog.token} the bearer token of the REST catalog at {@code catalog.restUri}; each is
 * null when read from a file of an earlier version. {@code workers{jdbcUrl,schema}} is the
 * worker scheduler's PostgreSQL queue, present only when the stack runs workers (the
 * {@code deploy}, {@code trigger} and {@code runs} verbs use it). Written owner-only
 * ({@code rw-------}), since it holds the S3 secret and the tokens.
 */
public record EndpointsFile(
    URI s3Endpoint, String region, String accessKey, String secretKey, String bucket,
    URI flightUri, String flightToken,
    String catalogName, URI catalogRestUri, Map<String, String> catalogProperties,
    URI adminUri, URI eventsUri, String adminToken, String catalogToken, List<URI> s3Endpoints,
    WorkersDatabase workers) {

  /**
   * The worker scheduler's queue: a PostgreSQL JDBC URL (credentials in its parameters) and
   * the schema holding the queue's tables.
   */
  public record WorkersDatabase(String jdbcUrl, String schema) {
    public WorkersDatabase {
      Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      Objects.requireNonNull(schema, "schema");
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The endpoints of a stack with one cache node. */
  public EndpointsFile(URI s3Endpoint, String region, String accessKey, String secretKey,
      String bucket, URI flightUri, String flightToken, String catalogName, URI catalogRestUri,
      Map<String, String> catalogProperties, URI adminUri, URI eventsUri, String adminToken,
      String catalogToken) {
    this(s3Endpoint, region, accessKey, secretKey, bucket, flightUri, flightToken, catalogName,
        catalogRestUri, catalogProperties, adminUri, eventsUri, adminToken, catalogToken,
        List.of(s3Endpoint), null);
  }

  /** These endpoints with the worker scheduler's queue (null: the stack runs no workers). */
  public EndpointsFile withWorkers(WorkersDatabase value) {
    return new EndpointsFile(s3Endpoint, region, accessKey, secretKey, bucket, flightUri,
        flightToken, catalogName, catalogRestUri, catalogProperties, adminUri, eventsUri,
        adminToken, catalogToken, s3Endpoints, value);
  }

  /**
   * Where a worker run reaches the stack (Flight, the query endpoint, the change feed, and the
   * bucket behind the S3 endpoint for queues).
   */
  public WorkerEndpoints workerEndpoints(Duration commitTimeout) {
    return new WorkerEndpoints(flightUri, flightToken, s3Endpoint, catalogToken, eventsUri,
        adminToken, commitTimeout).withQueues(
            new ObjectStoreEndpoint(s3Endpoint, region, accessKey, secretKey, bucket));
  }

  /** {@code s3Endpoints}: every cache node's S3 endpoint, the first being {@code s3Endpoint}. */
  public EndpointsFile {
    catalogProperties = Map.copyOf(catalogProperties);
    s3Endpoints = List.copyOf(s3Endpoints);
    if (s3Endpoints.isEmpty() || !s3Endpoints.get(0).equals(s3Endpoint)) {
      throw new IllegalArgumentException("Cannot describe the endpoints: the first of "
          + s3Endpoints + " must be the S3 endpoint " + s3Endpoint);
    }
  }

  public void write(Path file) {
    ObjectNode root = MAPPER.createObjectNode();
    ObjectNode s3 = root.putObject("s3");
    s3.put("endpoint", s3Endpoint.toString());
    s3.put("region", region);
    s3.put("accessKey", accessKey);
    s3.put("secretKey", secretKey);
    s3.put("bucket", bucket);
    s3Endpoints.forEach(uri -> s3.withArray("endpoints").add(uri.toString()));
    ObjectNode flight = root.putObject("flight");
    flight.put("uri", flightUri.toString());
    flight.put("token", flightToken);
    ObjectNode catalog = root.putObject("catalog");
    catalog.put("name", catalogName);
    catalog.put("restUri", catalogRestUri.toString());
    catalog.put("token", catalogToken);
    ObjectNode props = catalog.putObject("properties");
    new java.util.TreeMap<>(catalogProperties).forEach(props::put);
    ObjectNode admin = root.putObject("admin");
    admin.put("uri", adminUri.toString());
    admin.put("token", adminToken);
    root.putObject("events").put("uri", eventsUri.toString());
    if (workers != null) {
      root.putObject("workers").put("jdbcUrl", workers.jdbcUrl()).put("schema", workers.schema());
    }
    try {
      OwnerOnlyFile.write(file,
          MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  public static EndpointsFile read(Path file) {
    JsonNode root;
    try {
      root = MAPPER.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + " (is `verglas local` running?)", e);
    }
    Map<String, String> props = new LinkedHashMap<>();
    root.path("catalog").path("properties").fields()
        .forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    JsonNode s3 = root.path("s3");
    return new EndpointsFile(URI.create(s3.path("endpoint").asText()), s3.path("region").asText(),
        s3.path("accessKey").asText(), s3.path("secretKey").asText(), s3.path("bucket").asText(),
        URI.create(root.path("flight").path("uri").asText()),
        root.path("flight").path("token").asText(), root.path("catalog").path("name").asText(),
        URI.create(root.path("catalog").path("restUri").asText()), props,
        URI.create(root.path("admin").path("uri").asText()),
        URI.create(root.path("events").path("uri").asText()),
        root.path("admin").path("token").asText(null),
        root.path("catalog").path("token").asText(null), s3Endpoints(s3), workers(root));
  }

  private static WorkersDatabase workers(JsonNode root) {
    JsonNode workers = root.path("workers");
    return workers.isObject() ? new WorkersDatabase(workers.path("jdbcUrl").asText(),
        workers.path("schema").asText()) : null;
  }

  /** {@code s3.endpoints}, or the one {@code s3.endpoint} of files written before clusters. */
  private static List<URI> s3Endpoints(JsonNode s3) {
    List<URI> all = new ArrayList<>();
    s3.path("endpoints").forEach(node -> all.add(URI.create(node.asText())));
    return all.isEmpty() ? List.of(URI.create(s3.path("endpoint").asText())) : all;
  }
}
