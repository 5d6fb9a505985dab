package io.verglas.workers.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;

/**
 * The line protocol between a run's process and the harness: one {@link RunEvent} as JSON per
 * line of the process's standard output (the worker's own {@code System.out} goes to standard
 * error), each line starting with {@link #PREFIX}, which names the version, so that a stray
 * line is told apart.
 */
final class RunEventCodec {
  static final String PREFIX = "verglas-run-event/1 ";
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunEventCodec() {}

  static String toLine(RunEvent event) {
    ObjectNode node = JSON.createObjectNode()
        .put("kind", event.kind().name())
        .put("time", event.time().toString())
        .put("table", event.table())
        .put("rows", event.rows())
        .put("snapshotId", event.snapshotId())
        .put("key", event.key())
        .put("level", event.level())
        .put("message", event.message());
    return PREFIX + node;
  }

  /** The event of a protocol line, or null for any other line. */
  static RunEvent fromLine(String line) {
    if (!line.startsWith(PREFIX)) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(line.substring(PREFIX.length()));
      return new RunEvent(RunEvent.Kind.valueOf(node.path("kind").asText()),
          Instant.parse(node.path("time").asText()), text(node, "table"), number(node, "rows"),
          number(node, "snapshotId"), text(node, "key"), text(node, "level"),
          text(node, "message"));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("Cannot read run event: " + line, e);
    }
  }

  /** A field's text, or null when it is absent or null. */
  static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  private static Long number(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asLong();
  }
}
