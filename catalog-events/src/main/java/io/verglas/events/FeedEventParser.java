package io.verglas.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * CloudEvents 1.0 structured JSON for every {@link FeedEvent}: the envelope attributes here,
 * the {@code data} of each type in its own parser. The feed sequence is the extension attribute
 * {@code feedsequence}. An unknown type fails clearly rather than being read as a commit;
 * {@link #entryFromJson} is for consumers, which skip types they do not know.
 */
public final class FeedEventParser {
  static final String FEED_SEQUENCE = "feedsequence";
  static final ObjectMapper MAPPER = new ObjectMapper();

  private FeedEventParser() {}

  public static String toJson(FeedEvent event) {
    if (event instanceof CatalogEvent commit) {
      return CatalogEventParser.toJson(commit);
    }
    return TableMaintainedEventParser.toJson((TableMaintainedEvent) event); // sealed: the other

  }

  public static FeedEvent fromJson(String json) {
    JsonNode root = readTree(json);
    String type = text(root, "type");
    return known(root, type).orElseThrow(() -> new IllegalArgumentException(
        "Cannot parse feed event: unknown type " + type + " (expected " + CatalogEvent.TYPE
            + " or " + TableMaintainedEvent.TYPE + ")"));
  }

  /**
   * Reads a feed line of any type: the envelope's type and sequence always, the event when its
   * type is known. A line that is not a CloudEvent (no type) or a known type whose data is
   * malformed still fails.
   */
  public static FeedEntry entryFromJson(String json) {
    JsonNode root = readTree(json);
    String type = text(root, "type");
    return new FeedEntry(type, feedSequence(root), known(root, type));
  }

  /** The event of a parsed root when its type is one this version knows; the JSON is read once. */
  private static Optional<FeedEvent> known(JsonNode root, String type) {
    return switch (type) {
      case CatalogEvent.TYPE -> Optional.of(CatalogEventParser.fromTree(root));
      case TableMaintainedEvent.TYPE -> Optional.of(TableMaintainedEventParser.fromTree(root));
      default -> Optional.empty();
    };
  }

  /** Writes the envelope and the data fields every type shares; returns the data object. */
  static ObjectNode envelope(ObjectNode root, FeedEvent event) {
    root.put("specversion", CatalogEvent.SPEC_VERSION);
    root.put("id", event.id());
    root.put("source", event.source());
    root.put("type", event.type());
    root.put("subject", event.subject());
    root.put("time", event.time().toString());
    root.put("datacontenttype", "application/json");
    if (event.feedSequence() > 0) {
      root.put(FEED_SEQUENCE, event.feedSequence());
    }
    ObjectNode data = root.putObject("data");
    event.table().forEach(data.putArray("table")::add);
    data.put("table-uuid", event.tableUuid());
    return data;
  }

  /** The root of an event of {@code type}; any other type is rejected. */
  static JsonNode root(String json, String type) {
    JsonNode root = readTree(json);
    if (!type.equals(root.path("type").asText(null))) {
      throw new IllegalArgumentException("Cannot parse catalog event: type must be " + type);
    }
    return root;
  }

  static Instant time(JsonNode root) {
    return Instant.parse(text(root, "time"));
  }

  static long feedSequence(JsonNode root) {
    return root.path(FEED_SEQUENCE).asLong(0);
  }

  static List<String> table(JsonNode data) {
    List<String> table = new ArrayList<>();
    data.path("table").forEach(level -> table.add(level.asText()));
    return table;
  }

  static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new IllegalArgumentException("Cannot parse catalog event: missing " + field);
    }
    return value.asText();
  }

  private static JsonNode readTree(String json) {
    try {
      JsonNode root = MAPPER.readTree(json);
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException("Cannot parse catalog event: not a JSON object");
      }
      return root;
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse catalog event: " + e.getMessage(), e);
    }
  }
}
