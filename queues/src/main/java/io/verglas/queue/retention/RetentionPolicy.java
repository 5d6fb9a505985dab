package io.verglas.queue.retention;

import java.time.Duration;

/**
 * When a queue's segments may go: once older than {@code maxAge}, or once the segments newer
 * than them already hold {@code maxBytes} — and in both cases only once every consumer group
 * acknowledged them. A queue with no group keeps its segments only by age and size.
 */
public record RetentionPolicy(Duration maxAge, long maxBytes) {
  public static final Duration MAX_AGE_DEFAULT = Duration.ofDays(7);
  public static final long MAX_BYTES_DEFAULT = 10L << 30;

  public RetentionPolicy {
    if (maxAge.isNegative()) {
      throw new IllegalArgumentException("Invalid retention age: " + maxAge);
    }
    if (maxBytes < 0) {
      throw new IllegalArgumentException("Invalid retention size: " + maxBytes + " bytes");
    }
  }

  public static RetentionPolicy defaults() {
    return new RetentionPolicy(MAX_AGE_DEFAULT, MAX_BYTES_DEFAULT);
  }
}
