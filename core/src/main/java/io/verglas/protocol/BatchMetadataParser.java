package io.verglas.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON form of {@link BatchMetadata}, the UTF-8 app metadata a client attaches to a
 * {@code DoPut} batch: {@code {"idempotencyKey":"order-17-attempt"}}. Empty metadata means no
 * key; unknown fields are ignored so clients may send more later.
 */
public final class BatchMetadataParser {
  static final String IDEMPOTENCY_KEY = "idempotencyKey";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private BatchMetadataParser() {}

  public static String toJson(BatchMetadata metadata) {
    ObjectNode node = MAPPER.createObjectNode();
    if (metadata.idempotencyKey() != null) {
      node.put(IDEMPOTENCY_KEY, metadata.idempotencyKey());
    }
    return node.toString();
  }

  public static byte[] toBytes(BatchMetadata metadata) {
    return toJson(metadata).getBytes(StandardCharsets.UTF_8);
  }

  /** Parses metadata bytes; null or empty bytes mean {@link BatchMetadata#NONE}. */
  public static BatchMetadata fromBytes(byte[] utf8) {
    if (utf8 == null || utf8.length == 0) {
      return BatchMetadata.NONE;
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(utf8);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot parse batch metadata: not JSON ("
          + e.getOriginalMessage() + "); expected {\"" + IDEMPOTENCY_KEY + "\":\"...\"}", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse batch metadata: " + e.getMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("Cannot parse batch metadata: expected a JSON object "
          + "like {\"" + IDEMPOTENCY_KEY + "\":\"...\"} but got "
          + new String(utf8, StandardCharsets.UTF_8));
    }
    JsonNode key = node.get(IDEMPOTENCY_KEY);
    if (key == null || key.isNull()) {
      return BatchMetadata.NONE;
    }
    if (!key.isTextual()) {
      throw new IllegalArgumentException("Cannot parse batch metadata: " + IDEMPOTENCY_KEY
          + " must be a string but got " + key);
    }
    return new BatchMetadata(key.asText());
  }
}
