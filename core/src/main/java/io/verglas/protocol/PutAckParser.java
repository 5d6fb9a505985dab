package io.verglas.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON form of {@link PutAck}, the UTF-8 app metadata of a {@code PutResult}:
 * {@code {"stream":"ingest-1","sequence":42,"batch":0,"hlc":1234,"rows":500}}. Readers ignore
 * fields they do not know so the server may add some later.
 */
public final class PutAckParser {
  static final String STREAM = "stream";
  static final String SEQUENCE = "sequence";
  static final String BATCH = "batch";
  static final String HLC = "hlc";
  static final String ROWS = "rows";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private PutAckParser() {}

  public static String toJson(PutAck ack) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put(STREAM, ack.stream());
    node.put(SEQUENCE, ack.sequence());
    node.put(BATCH, ack.batch());
    node.put(HLC, ack.hlc());
    node.put(ROWS, ack.rows());
    return node.toString();
  }

  public static byte[] toBytes(PutAck ack) {
    return toJson(ack).getBytes(StandardCharsets.UTF_8);
  }

  public static PutAck fromJson(String json) {
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse put ack: " + e.getMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("Cannot parse put ack: not a JSON object: " + json);
    }
    return new PutAck(text(node, STREAM), number(node, SEQUENCE).longValue(),
        number(node, BATCH).intValue(), number(node, HLC).longValue(),
        number(node, ROWS).intValue());
  }

  public static PutAck fromBytes(byte[] utf8) {
    return fromJson(new String(utf8, StandardCharsets.UTF_8));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException("Cannot parse put ack: missing string " + field);
    }
    return value.asText();
  }

  private static JsonNode number(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber()) {
      throw new IllegalArgumentException("Cannot parse put ack: missing integer " + field);
    }
    return value;
  }
}
