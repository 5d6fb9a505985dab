package io.verglas.cache.awareness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON form of {@link WatcherState}, versioned:
 * <pre>{@code
 * {"format-version":1,"feed":"http://host:port/events","sequence":42,
 *  "tables":{"db.events":"s3://bucket/db/events/metadata/00003-....metadata.json"}}
 * }</pre>
 * A file of a newer format version is refused rather than misread.
 */
final class WatcherStateParser {
  static final int FORMAT_VERSION = 1;
  static final String FORMAT_VERSION_KEY = "format-version";
  static final String FEED = "feed";
  static final String SEQUENCE = "sequence";
  static final String TABLES = "tables";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private WatcherStateParser() {}

  static String toJson(WatcherState state) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put(FORMAT_VERSION_KEY, FORMAT_VERSION);
    root.put(FEED, state.feed());
    root.put(SEQUENCE, state.sequence());
    ObjectNode tables = root.putObject(TABLES);
    state.tables().forEach(tables::put);
    return root.toString();
  }

  static WatcherState fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read watcher state: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("Cannot read watcher state: not a JSON object");
    }
    int version = root.path(FORMAT_VERSION_KEY).asInt(-1);
    if (version != FORMAT_VERSION) {
      throw new IllegalArgumentException("Cannot read watcher state: unsupported "
          + FORMAT_VERSION_KEY + " " + root.path(FORMAT_VERSION_KEY) + " (expected " + FORMAT_VERSION + ")");
    }
    JsonNode feed = root.get(FEED);
    JsonNode sequence = root.get(SEQUENCE);
    if (feed == null || !feed.isTextual() || sequence == null || !sequence.canConvertToLong()) {
      throw new IllegalArgumentException("Cannot read watcher state: missing " + FEED + " or " + SEQUENCE);
    }
    Map<String, String> tables = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> entries = root.path(TABLES).fields();
    while (entries.hasNext()) {
      Map.Entry<String, JsonNode> entry = entries.next();
      if (!entry.getValue().isTextual()) {
        throw new IllegalArgumentException("Cannot read watcher state: metadata location of "
            + entry.getKey() + " is not a string");
      }
      tables.put(entry.getKey(), entry.getValue().asText());
    }
    return new WatcherState(feed.asText(), sequence.asLong(), tables);
  }
}
