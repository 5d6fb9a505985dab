package io.verglas.queue;

import java.util.Map;
import java.util.Objects;

/**
 * One message as a publisher gives it: an optional key (a consumer-side idempotency or routing
 * hint; the queue does not interpret it), the payload bytes and string headers.
 */
public record QueueMessage(String key, byte[] payload, Map<String, String> headers) {
  public QueueMessage {
    Objects.requireNonNull(payload, "payload");
    headers = Map.copyOf(headers);
  }

  public static QueueMessage of(byte[] payload) {
    return new QueueMessage(null, payload, Map.of());
  }

  /** The bytes the message takes in a segment before compression (a bound, not exact). */
  public long weight() {
    long size = payload.length + (key == null ? 0 : key.length() * 3L) + 16;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      size += (header.getKey().length() + header.getValue().length()) * 3L + 8;
    }
    return size;
  }
}
