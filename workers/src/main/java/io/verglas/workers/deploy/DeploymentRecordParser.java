package io.verglas.workers.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.workers.trigger.CatchUp;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * The JSON form of a {@link DeploymentRecord}: what {@code ./verglas deploy FILE.json} reads
 * and what the deployments table stores. Unknown keys fail (a typo must not silently drop a
 * grant or a trigger), and a reader refuses versions it does not know. Version {@value #VERSION}
 * adds queue grants ({@code grants.publish}, {@code grants.consume}: queue names); a record
 * without them is written as version 1, which every reader knows and which grants no queue.
 *
 * <pre>{@code
 * {"version": 1, "name": "hourly", "kind": "worker", "placement": "local",
 *  "code": {"jar": "hourly.jar", "class": "example.HourlyAggregate"},
 *  "triggers": [{"type": "cron", "name": "every-hour", "cron": "0 * * * *", "zone": "UTC",
 *                "startDate": "2026-12-01T00:00:00Z", "catchUp": "none"},
 *               {"type": "webhook", "name": "hook", "secret": "env:HOURLY_WEBHOOK_SECRET"},
 *               {"type": "event", "name": "raw",
 *                "eventType": "org.apache.iceberg.snapshot.committed", "source": null,
 *                "subject": "shop.raw_events"}],
 *  "config": {"source": "shop.raw_events"}, "secrets": {"token": "env:HOURLY_TOKEN"},
 *  "grants": {"read": ["shop.raw_events"], "write": ["shop.hourly"],
 *             "publish": ["hourly-done"], "consume": ["orders"]},
 *  "outputs": {"hourly": "shop.hourly"}, "timeout": "PT90S", "scaling": {"maxConcurrency": 1}}
 * }</pre>
 */
public final class DeploymentRecordParser {
  public static final int VERSION = 2;
  private static final Set<String> GRANTS_V1 = Set.of("read", "write");
  private static final Set<String> GRANTS = Set.of("read", "write", "publish", "consume");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Set<String> KEYS = Set.of("version", "name", "kind", "placement", "code",
      "triggers", "config", "secrets", "grants", "outputs", "timeout", "scaling");

  private DeploymentRecordParser() {}

  public static String toJson(DeploymentRecord record) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("version", record.queues().isEmpty() ? 1 : VERSION);
    root.put("name", record.name());
    root.put("kind", lower(record.kind()));
    root.put("placement", lower(record.placement()));
    root.putObject("code").put("jar", record.jar().toString()).put("class", record.workerClass());
    ArrayNode triggers = root.putArray("triggers");
    record.triggers().forEach(t -> triggers.add(trigger(t)));
    record.config().forEach(root.putObject("config")::put);
    record.secrets().forEach(root.putObject("secrets")::put);
    ObjectNode grants = root.putObject("grants");
    record.reads().forEach(grants.putArray("read")::add);
    record.writes().forEach(grants.putArray("write")::add);
    if (!record.queues().isEmpty()) {
      new TreeSet<>(record.queues().publish()).forEach(grants.putArray("publish")::add);
      new TreeSet<>(record.queues().consume()).forEach(grants.putArray("consume")::add);
    }
    record.outputs().forEach(root.putObject("outputs")::put);
    root.put("timeout", record.timeout().toString());
    root.putObject("scaling").put("maxConcurrency", record.maxConcurrency());
    try {
      return MAPPER.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write deployment " + record.name() + ": " + e, e);
    }
  }

  /** A stored record (its jar an absolute URI). */
  public static DeploymentRecord fromJson(String json) {
    return fromJson(json, null);
  }

  /**
   * A record from a deployment file: a {@code code.jar} that is a relative path resolves
   * against {@code baseDir} (the file's directory; null: it must be absolute).
   */
  public static DeploymentRecord fromJson(String json, Path baseDir) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot read deployment: " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("Cannot read deployment: not a JSON object");
    }
    checkKeys(root, KEYS, "deployment");
    int version = root.path("version").asInt(VERSION);
    if (version != 1 && version != VERSION) {
      throw new IllegalArgumentException("Cannot read deployment: unknown version " + version
          + " (this reader knows 1 and " + VERSION + ")");
    }
    DeploymentRecord.Builder b = DeploymentRecord.builder(text(root, "name", true));
    b.kind(enumOf(DeploymentRecord.Kind.class, root, "kind", DeploymentRecord.Kind.WORKER));
    b.placement(enumOf(DeploymentRecord.Placement.class, root, "placement",
        DeploymentRecord.Placement.LOCAL));
    JsonNode code = root.path("code");
    checkKeys(code, Set.of("jar", "class"), "code");
    b.code(jar(text(code, "jar", true), baseDir), text(code, "class", true));
    root.path("triggers").forEach(t -> b.trigger(trigger(t)));
    strings(root.path("config"), "config", b::config);
    strings(root.path("secrets"), "secrets", b::secret);
    JsonNode grants = root.path("grants");
    checkKeys(grants, version == 1 ? GRANTS_V1 : GRANTS, version == 1 ? "grants of a version 1 record" : "grants");
    grants.path("read").forEach(t -> b.read(t.asText()));
    grants.path("write").forEach(t -> b.write(t.asText()));
    grants.path("publish").forEach(q -> b.publish(q.asText()));
    grants.path("consume").forEach(q -> b.consume(q.asText()));
    strings(root.path("outputs"), "outputs", b::output);
    String timeout = text(root, "timeout", false);
    if (timeout != null) {
      b.timeout(duration(timeout));
    }
    JsonNode scaling = root.path("scaling");
    checkKeys(scaling, Set.of("maxConcurrency"), "scaling");
    if (scaling.has("maxConcurrency")) {
      b.maxConcurrency(scaling.get("maxConcurrency").asInt(0));
    }
    return b.build();
  }

  private static ObjectNode trigger(TriggerSpec trigger) {
    ObjectNode node = MAPPER.createObjectNode().put("type", trigger.type())
        .put("name", trigger.name());
    if (trigger instanceof TriggerSpec.Cron c) {
      node.put("cron", c.expression()).put("zone", c.zone().getId())
          .put("startDate", c.startDate().toString()).put("catchUp", lower(c.catchUp()));
    } else if (trigger instanceof TriggerSpec.Webhook w && w.secret() != null) {
      node.put("secret", w.secret());
    } else if (trigger instanceof TriggerSpec.Event e) {
      node.put("eventType", e.eventType()).put("source", e.source()).put("subject", e.subject());
    }
    return node;
  }

  private static TriggerSpec trigger(JsonNode node) {
    String type = text(node, "type", true);
    String name = text(node, "name", true);
    return switch (type) {
      case "cron" -> {
        checkKeys(node, Set.of("type", "name", "cron", "zone", "startDate", "catchUp"), "trigger " + name);
        String start = text(node, "startDate", false);
        String zone = text(node, "zone", false);
        yield new TriggerSpec.Cron(name, text(node, "cron", true),
            zone == null ? ZoneOffset.UTC : zoneOf(zone),
            start == null ? null : instant(start, name),
            enumOf(CatchUp.class, node, "catchUp", CatchUp.NONE));
      }
      case "webhook" -> {
        checkKeys(node, Set.of("type", "name", "secret"), "trigger " + name);
        yield new TriggerSpec.Webhook(name, text(node, "secret", false));
      }
      case "event" -> {
        checkKeys(node, Set.of("type", "name", "eventType", "source", "subject"), "trigger " + name);
        yield new TriggerSpec.Event(name, text(node, "eventType", true),
            text(node, "source", false), text(node, "subject", false));
      }
      default -> throw new IllegalArgumentException("Cannot read trigger " + name
          + ": unknown type '" + type + "' (cron, webhook or event)");
    };
  }

  private static URI jar(String jar, Path baseDir) {
    if (jar.startsWith("file:")) {
      return URI.create(jar);
    }
    Path path = Path.of(jar);
    if (!path.isAbsolute()) {
      if (baseDir == null) {
        throw new IllegalArgumentException("Cannot read deployment: jar " + jar
            + " is relative and there is no directory to resolve it in");
      }
      path = baseDir.resolve(path);
    }
    return path.toAbsolutePath().normalize().toUri();
  }

  private static void checkKeys(JsonNode node, Set<String> known, String what) {
    if (node.isMissingNode() || node.isNull()) {
      return;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException("Cannot read deployment: " + what + " is not an object");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!known.contains(key)) {
        throw new IllegalArgumentException("Cannot read deployment: unknown key '" + key
            + "' in " + what + " (known: " + new java.util.TreeSet<>(known) + ")");
      }
    }
  }

  private static void strings(JsonNode node, String what, BiConsumer<String, String> put) {
    if (node.isMissingNode() || node.isNull()) {
      return;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException("Cannot read deployment: " + what + " is not an object");
    }
    for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) node::fields) {
      if (!e.getValue().isTextual()) {
        throw new IllegalArgumentException("Cannot read deployment: " + what + "." + e.getKey()
            + " is not a string");
      }
      put.accept(e.getKey(), e.getValue().asText());
    }
  }

  private static String text(JsonNode node, String key, boolean required) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      if (required) {
        throw new IllegalArgumentException("Cannot read deployment: '" + key + "' is missing");
      }
      return null;
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException("Cannot read deployment: '" + key + "' is not a string");
    }
    return value.asText();
  }

  private static <E extends Enum<E>> E enumOf(Class<E> type, JsonNode node, String key, E fallback) {
    String value = text(node, key, false);
    if (value == null) {
      return fallback;
    }
    try {
      return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot read deployment: " + key + " '" + value
          + "' is not one of " + List.of(type.getEnumConstants()).stream().map(DeploymentRecordParser::lower).toList(), e);
    }
  }

  private static Duration duration(String text) {
    try {
      return Duration.parse(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read deployment: timeout '" + text
          + "' is not an ISO-8601 duration (e.g. PT90S)", e);
    }
  }

  private static Instant instant(String text, String trigger) {
    try {
      return Instant.parse(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read trigger " + trigger + ": startDate '"
          + text + "' is not an RFC 3339 UTC time (e.g. 2026-12-01T00:00:00Z)", e);
    }
  }

  private static ZoneId zoneOf(String text) {
    try {
      return ZoneId.of(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read deployment: zone '" + text + "' is not a time zone", e);
    }
  }

  private static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
