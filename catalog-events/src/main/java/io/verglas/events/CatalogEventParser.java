package io.verglas.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** CloudEvents 1.0 structured JSON for {@link CatalogEvent}; the feed sequence is an extension attribute. */
public final class CatalogEventParser {
  static final String FEED_SEQUENCE = "feedsequence";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CatalogEventParser() {}

  public static String toJson(CatalogEvent event) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("specversion", CatalogEvent.SPEC_VERSION);
    root.put("id", event.id());
    root.put("source", event.source());
    root.put("type", CatalogEvent.TYPE);
    root.put("subject", event.subject());
    root.put("time", event.time().toString());
    root.put("datacontenttype", "application/json");
    if (event.feedSequence() > 0) {
      root.put(FEED_SEQUENCE, event.feedSequence());
    }
    ObjectNode data = root.putObject("data");
    event.table().forEach(data.putArray("table")::add);
    data.put("table-uuid", event.tableUuid());
    data.put("snapshot-id", event.snapshotId());
    if (event.parentSnapshotId() != null) {
      data.put("parent-snapshot-id", event.parentSnapshotId());
    }
    data.put("operation", event.operation());
    data.put("sequence-number", event.sequenceNumber());
    data.put("commit-time-ms", event.commitTimeMillis());
    ObjectNode summary = data.putObject("summary");
    event.summary().forEach(summary::put);
    data.put("metadata-location", event.metadataLocation());
    return root.toString();
  }

  public static CatalogEvent fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse catalog event: " + e.getMessage(), e);
    }
    if (root == null || !CatalogEvent.TYPE.equals(text(root, "type"))) {
      throw new IllegalArgumentException("Cannot parse catalog event: type must be " + CatalogEvent.TYPE);
    }
    JsonNode data = root.path("data");
    List<String> table = new ArrayList<>();
    data.path("table").forEach(level -> table.add(level.asText()));
    Map<String, String> summary = new LinkedHashMap<>();
    data.path("summary").fields().forEachRemaining(e -> summary.put(e.getKey(), e.getValue().asText()));
    JsonNode parent = data.get("parent-snapshot-id");
    return new CatalogEvent(text(root, "id"), text(root, "source"), Instant.parse(text(root, "time")),
        table, text(data, "table-uuid"), data.path("snapshot-id").asLong(),
        parent == null || parent.isNull() ? null : parent.asLong(), text(data, "operation"),
        data.path("sequence-number").asLong(), data.path("commit-time-ms").asLong(), summary,
        data.path("metadata-location").asText(null), root.path(FEED_SEQUENCE).asLong(0));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new IllegalArgumentException("Cannot parse catalog event: missing " + field);
    }
    return value.asText();
  }
}
