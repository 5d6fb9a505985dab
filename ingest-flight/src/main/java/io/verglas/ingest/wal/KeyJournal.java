package io.verglas.ingest.wal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.protocol.PutAck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The idempotency keys of one durable segment, written beside the WAL so that a restarted
 * server still recognizes retried batches after the materializer deleted the segment.
 *
 * <p>Format version 1 (JSON): {@code {"version":1,"lane":"ingest-1.2","sequence":42,
 * "createdAtMillis":1767225600000,"batches":[{"table":"<uuid>","key":"order-17","batch":0,
 * "hlc":123,"rows":500}]}}. Readers refuse other versions.
 */
public record KeyJournal(String lane, long sequence, long createdAtMillis, List<Entry> entries) {
  static final int FORMAT_VERSION = 1;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** One keyed batch of the segment. */
  public record Entry(String tableUuid, String key, int batch, long hlc, int rows) {
    public Entry {
      Objects.requireNonNull(tableUuid, "tableUuid");
      Objects.requireNonNull(key, "key");
    }
  }

  public KeyJournal {
    Objects.requireNonNull(lane, "lane");
    entries = List.copyOf(entries);
  }

  /** The acknowledgement of one entry's batch. */
  public PutAck ack(Entry entry) {
    return new PutAck(lane, sequence, entry.batch(), entry.hlc(), entry.rows());
  }

  public byte[] toBytes() {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("version", FORMAT_VERSION);
    node.put("lane", lane);
    node.put("sequence", sequence);
    node.put("createdAtMillis", createdAtMillis);
    ArrayNode batches = node.putArray("batches");
    for (Entry entry : entries) {
      ObjectNode batch = batches.addObject();
      batch.put("table", entry.tableUuid());
      batch.put("key", entry.key());
      batch.put("batch", entry.batch());
      batch.put("hlc", entry.hlc());
      batch.put("rows", entry.rows());
    }
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  public static KeyJournal fromBytes(byte[] bytes) {
    JsonNode node;
    try {
      node = MAPPER.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse key journal: " + e.getMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("Cannot parse key journal: not a JSON object");
    }
    int version = node.path("version").asInt(-1);
    switch (version) {
      case 1:
        List<Entry> entries = new ArrayList<>();
        for (JsonNode batch : node.path("batches")) {
          entries.add(new Entry(text(batch, "table"), text(batch, "key"),
              batch.path("batch").asInt(), batch.path("hlc").asLong(), batch.path("rows").asInt()));
        }
        return new KeyJournal(text(node, "lane"), node.path("sequence").asLong(),
            node.path("createdAtMillis").asLong(), entries);
      default:
        throw new IllegalArgumentException("Cannot parse key journal: unknown version " + version);
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException("Cannot parse key journal: missing string " + field);
    }
    return value.asText();
  }
}
