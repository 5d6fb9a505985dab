package io.verglas.workers.schedule;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff between attempts: {@code base * 2^(attempt-1)}, capped at {@code max}.
 * Deterministic (no jitter): retries are spread by their different failure times, and a test
 * can predict the next run time exactly.
 */
public record Backoff(Duration base, Duration max) {
  public Backoff {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(max, "max");
    if (base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("Cannot use backoff base " + base + ": must be positive");
    }
    if (max.compareTo(base) < 0) {
      throw new IllegalArgumentException("Cannot use backoff max " + max + ": below base " + base);
    }
  }

  /** The wait after failed attempt {@code attempt} (1-based). */
  public Duration delayAfter(int attempt) {
    int shift = Math.min(Math.max(attempt - 1, 0), 30);
    long millis = base.toMillis() << shift;
    return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
  }
}
