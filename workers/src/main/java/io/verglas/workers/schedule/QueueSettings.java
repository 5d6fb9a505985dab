package io.verglas.workers.schedule;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How the queue treats jobs: the clock, the lease duration, attempts per job, the backoff
 * between attempts and the largest event a job may carry. Built and validated by
 * {@link #builder()}.
 */
public final class QueueSettings {
  public static final Duration LEASE_DURATION_DEFAULT = Duration.ofSeconds(30);
  public static final int MAX_ATTEMPTS_DEFAULT = 5;
  public static final Backoff BACKOFF_DEFAULT =
      new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(10));
  public static final int MAX_EVENT_BYTES_DEFAULT = 256 * 1024;
  private final Clock clock;
  private final Duration leaseDuration;
  private final int maxAttempts;
  private final Backoff backoff;
  private final int maxEventBytes;

  private QueueSettings(Builder b) {
    this.clock = b.clock;
    this.leaseDuration = b.leaseDuration;
    this.maxAttempts = b.maxAttempts;
    this.backoff = b.backoff;
    this.maxEventBytes = b.maxEventBytes;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static QueueSettings defaults() {
    return builder().build();
  }

  public Clock clock() { return clock; }
  public Duration leaseDuration() { return leaseDuration; }
  public int maxAttempts() { return maxAttempts; }
  public Backoff backoff() { return backoff; }
  public int maxEventBytes() { return maxEventBytes; }

  /** Each setter validates its value and may be called once. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private Duration leaseDuration = LEASE_DURATION_DEFAULT;
    private int maxAttempts = MAX_ATTEMPTS_DEFAULT;
    private Backoff backoff = BACKOFF_DEFAULT;
    private int maxEventBytes = MAX_EVENT_BYTES_DEFAULT;

    private Builder() {}

    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    public Builder leaseDuration(Duration value) {
      if (value == null || value.toMillis() < 1) {
        throw new IllegalArgumentException("Cannot set lease duration to " + value
            + ": must be at least 1 ms");
      }
      this.leaseDuration = value;
      return this;
    }

    public Builder maxAttempts(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot set max attempts to " + value
            + ": must be at least 1");
      }
      this.maxAttempts = value;
      return this;
    }

    public Builder backoff(Backoff value) {
      this.backoff = Objects.requireNonNull(value, "backoff");
      return this;
    }

    public Builder maxEventBytes(int value) {
      if (value < 256) {
        throw new IllegalArgumentException("Cannot set max event bytes to " + value
            + ": must be at least 256");
      }
      this.maxEventBytes = value;
      return this;
    }

    public QueueSettings build() {
      return new QueueSettings(this);
    }
  }
}
