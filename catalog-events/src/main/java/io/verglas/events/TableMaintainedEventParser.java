package io.verglas.events;

import static io.verglas.events.FeedEventParser.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** CloudEvents 1.0 structured JSON for {@link TableMaintainedEvent}; see {@link FeedEventParser}. */
public final class TableMaintainedEventParser {
  private TableMaintainedEventParser() {}

  public static String toJson(TableMaintainedEvent event) {
    ObjectNode root = FeedEventParser.MAPPER.createObjectNode();
    ObjectNode data = FeedEventParser.envelope(root, event);
    data.put("operation", event.operation());
    data.put("metadata-location", event.metadataLocation());
    event.expiredSnapshotIds().forEach(data.putArray("expired-snapshot-ids")::add);
    ObjectNode deleted = data.putObject("deleted-files");
    new TreeMap<>(event.deletedFiles()).forEach(deleted::put); // sorted: stable bytes
    data.put("commit-id", event.commitId());
    return root.toString();
  }

  public static TableMaintainedEvent fromJson(String json) {
    return fromTree(FeedEventParser.root(json, TableMaintainedEvent.TYPE));
  }

  /** The event of a parsed root whose type is {@link TableMaintainedEvent#TYPE}. */
  static TableMaintainedEvent fromTree(JsonNode root) {
    JsonNode data = root.path("data");
    List<Long> expired = new ArrayList<>();
    data.path("expired-snapshot-ids").forEach(id -> expired.add(id.asLong()));
    Map<String, Long> deleted = new HashMap<>();
    data.path("deleted-files").fields().forEachRemaining(e -> deleted.put(e.getKey(),
        e.getValue().asLong()));
    return new TableMaintainedEvent(text(root, "id"), text(root, "source"),
        FeedEventParser.time(root), FeedEventParser.table(data), text(data, "table-uuid"),
        text(data, "operation"), data.path("metadata-location").asText(null), expired, deleted,
        text(data, "commit-id"), FeedEventParser.feedSequence(root));
  }
}
