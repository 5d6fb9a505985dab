package io.verglas.events.publish;

import java.time.Duration;

/**
 * Capped exponential backoff: the wait after the n-th failure in a row is
 * {@code initial * 2^(n-1)}, at most {@code max}. Pure, so its schedule is tested without waiting.
 */
public record Backoff(Duration initial, Duration max) {
  public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));

  public Backoff {
    if (initial.toMillis() < 1 || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("Invalid backoff: " + initial + " to " + max
          + " (need 1 ms <= initial <= max)");
    }
  }

  /** The wait after {@code failures} failures in a row ({@code failures >= 1}). */
  public Duration delay(long failures) {
    long shift = Math.min(Math.max(failures, 1) - 1, 30);
    long millis = initial.toMillis() << shift;
    return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
  }
}
