package io.verglas.ingest.wal;

import java.time.Duration;

/**
 * How often and how patiently a segment PUT is retried: up to {@code maxAttempts} attempts,
 * sleeping {@code initialBackoff · 2^(attempt-1)} (capped at {@code maxBackoff}) in between.
 * There is no jitter: one writer owns a stream, so retries of many writers do not synchronize
 * on the same key.
 */
public record PutRetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
  public static final int MAX_ATTEMPTS_DEFAULT = 6;
  public static final Duration INITIAL_BACKOFF_DEFAULT = Duration.ofMillis(100);
  public static final Duration MAX_BACKOFF_DEFAULT = Duration.ofSeconds(5);

  public PutRetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Invalid max attempts: " + maxAttempts + " (at least 1)");
    }
    if (initialBackoff == null || initialBackoff.isNegative()) {
      throw new IllegalArgumentException("Invalid initial backoff: " + initialBackoff);
    }
    if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("Invalid max backoff: " + maxBackoff
          + " (must be at least the initial backoff " + initialBackoff + ")");
    }
  }

  public static PutRetryPolicy defaults() {
    return new PutRetryPolicy(MAX_ATTEMPTS_DEFAULT, INITIAL_BACKOFF_DEFAULT, MAX_BACKOFF_DEFAULT);
  }

  /** The pause after failed attempt {@code attempt} (1-based). */
  public Duration backoff(int attempt) {
    long nanos = initialBackoff.toNanos();
    for (int i = 1; i < attempt && nanos < maxBackoff.toNanos(); i++) {
      nanos *= 2;
    }
    return Duration.ofNanos(Math.min(nanos, maxBackoff.toNanos()));
  }
}
