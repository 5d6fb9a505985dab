package io.verglas.events;

import static io.verglas.events.FeedEventParser.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** CloudEvents 1.0 structured JSON for {@link CatalogEvent}; see {@link FeedEventParser}. */
public final class CatalogEventParser {
  private CatalogEventParser() {}

  public static String toJson(CatalogEvent event) {
    ObjectNode root = FeedEventParser.MAPPER.createObjectNode();
    ObjectNode data = FeedEventParser.envelope(root, event);
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
    return fromTree(FeedEventParser.root(json, CatalogEvent.TYPE));
  }

  /** The event of a parsed root whose type is {@link CatalogEvent#TYPE}. */
  static CatalogEvent fromTree(JsonNode root) {
    JsonNode data = root.path("data");
    Map<String, String> summary = new LinkedHashMap<>();
    data.path("summary").fields().forEachRemaining(e -> summary.put(e.getKey(), e.getValue().asText()));
    JsonNode parent = data.get("parent-snapshot-id");
    return new CatalogEvent(text(root, "id"), text(root, "source"), FeedEventParser.time(root),
        FeedEventParser.table(data), text(data, "table-uuid"), data.path("snapshot-id").asLong(),
        parent == null || parent.isNull() ? null : parent.asLong(), text(data, "operation"),
        data.path("sequence-number").asLong(), data.path("commit-time-ms").asLong(), summary,
        data.path("metadata-location").asText(null), FeedEventParser.feedSequence(root));
  }
}
