package io.verglas.cache.protection;

import java.time.Duration;

/**
 * Settings of the protection between a cache node and its origin: a concurrency limit with a
 * bounded wait queue, retries with exponential backoff and full jitter, and a circuit breaker.
 * Immutable; built with {@link #builder()}, which checks each value as it is set.
 */
public final class OriginProtection {
  public static final int DEFAULT_MAX_CONCURRENCY = 64;
  public static final int DEFAULT_MAX_QUEUED = 10_000;
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  public static final Duration DEFAULT_BASE_BACKOFF = Duration.ofMillis(50);
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);
  public static final float DEFAULT_FAILURE_RATE_THRESHOLD = 50f;
  public static final int DEFAULT_SLIDING_WINDOW = 20;
  public static final int DEFAULT_MINIMUM_CALLS = 10;
  public static final Duration DEFAULT_OPEN_DURATION = Duration.ofSeconds(5);

  private static final OriginProtection DEFAULTS = builder().build();
  private static final OriginProtection DISABLED = new OriginProtection(builder(), false);

  private final boolean enabled;
  private final int maxConcurrency;
  private final int maxQueued;
  private final int maxAttempts;
  private final Duration baseBackoff;
  private final Duration maxBackoff;
  private final float failureRateThreshold;
  private final int slidingWindow;
  private final int minimumCalls;
  private final Duration openDuration;

  private OriginProtection(Builder b, boolean enabled) {
    this.enabled = enabled;
    this.maxConcurrency = b.maxConcurrency;
    this.maxQueued = b.maxQueued;
    this.maxAttempts = b.maxAttempts;
    this.baseBackoff = b.baseBackoff;
    this.maxBackoff = b.maxBackoff;
    this.failureRateThreshold = b.failureRateThreshold;
    this.slidingWindow = b.slidingWindow;
    this.minimumCalls = b.minimumCalls;
    this.openDuration = b.openDuration;
  }

  public static OriginProtection defaults() {
    return DEFAULTS;
  }

  /** No limit, no retries, no breaker: calls go straight to the origin. */
  public static OriginProtection disabled() {
    return DISABLED;
  }

  public static Builder builder() {
    return new Builder();
  }

  public boolean enabled() {
    return enabled;
  }

  public int maxConcurrency() {
    return maxConcurrency;
  }

  public int maxQueued() {
    return maxQueued;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public Duration baseBackoff() {
    return baseBackoff;
  }

  public Duration maxBackoff() {
    return maxBackoff;
  }

  public float failureRateThreshold() {
    return failureRateThreshold;
  }

  public int slidingWindow() {
    return slidingWindow;
  }

  public int minimumCalls() {
    return minimumCalls;
  }

  public Duration openDuration() {
    return openDuration;
  }

  @Override
  public String toString() {
    return enabled
        ? "OriginProtection[maxConcurrency=" + maxConcurrency + ", maxQueued=" + maxQueued
            + ", maxAttempts=" + maxAttempts + ", backoff=" + baseBackoff + ".." + maxBackoff
            + ", failureRate=" + failureRateThreshold + "% of " + slidingWindow + " (min "
            + minimumCalls + "), open=" + openDuration + "]"
        : "OriginProtection[disabled]";
  }

  public static final class Builder {
    private int maxConcurrency = DEFAULT_MAX_CONCURRENCY;
    private int maxQueued = DEFAULT_MAX_QUEUED;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration baseBackoff = DEFAULT_BASE_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private float failureRateThreshold = DEFAULT_FAILURE_RATE_THRESHOLD;
    private int slidingWindow = DEFAULT_SLIDING_WINDOW;
    private int minimumCalls = DEFAULT_MINIMUM_CALLS;
    private Duration openDuration = DEFAULT_OPEN_DURATION;

    private Builder() {}

    /** Origin calls in flight at once; more wait in a queue. */
    public Builder maxConcurrency(int value) {
      maxConcurrency = positive(value, "maxConcurrency");
      return this;
    }

    /** Calls allowed to wait for a slot; beyond that a call fails at once with SlowDown. */
    public Builder maxQueued(int value) {
      if (value < 0) {
        throw new IllegalArgumentException("Invalid maxQueued: " + value + " (must be >= 0)");
      }
      maxQueued = value;
      return this;
    }

    /** Tries per call, the first included (1 = no retries). */
    public Builder maxAttempts(int value) {
      maxAttempts = positive(value, "maxAttempts");
      return this;
    }

    /** Backoff before retry n is uniform in [0, min(max, base x 2^(n-1))] (full jitter). */
    public Builder backoff(Duration base, Duration max) {
      if (base == null || max == null || base.isNegative() || max.compareTo(base) < 0) {
        throw new IllegalArgumentException("Invalid backoff: " + base + ".." + max);
      }
      baseBackoff = base;
      maxBackoff = max;
      return this;
    }

    /** The breaker opens when this percentage (0-100] of recent calls failed. */
    public Builder failureRateThreshold(float percent) {
      if (!(percent > 0 && percent <= 100)) {
        throw new IllegalArgumentException("Invalid failure rate threshold: " + percent + " (0..100]");
      }
      failureRateThreshold = percent;
      return this;
    }

    /** The breaker judges the last {@code window} calls, once at least {@code minimum} were made. */
    public Builder slidingWindow(int window, int minimum) {
      positive(window, "slidingWindow");
      positive(minimum, "minimumCalls");
      if (minimum > window) {
        throw new IllegalArgumentException("Invalid minimumCalls: " + minimum + " (at most the window, " + window + ")");
      }
      slidingWindow = window;
      minimumCalls = minimum;
      return this;
    }

    /** How long an open breaker fails calls at once before letting a few through. */
    public Builder openDuration(Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid open duration: " + value);
      }
      openDuration = value;
      return this;
    }

    public OriginProtection build() {
      return new OriginProtection(this, true);
    }

    private static int positive(int value, String name) {
      if (value < 1) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be >= 1)");
      }
      return value;
    }
  }
}
