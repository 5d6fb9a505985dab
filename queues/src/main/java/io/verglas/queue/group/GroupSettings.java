package io.verglas.queue.group;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a consumer group hands out leases: how long a lease lasts before its segments are
 * redelivered, how many segments one lease covers at most, how many leases may be open at once
 * (this bounds the state object), the clock deadlines are read from (injected so tests move
 * time instead of sleeping; consumers of one group need reasonably synchronised clocks), and how
 * many times segments are delivered before they go to the group's dead-letter queue instead
 * ({@link DeadLetters}).
 */
public record GroupSettings(Duration leaseTimeout, int maxSegmentsPerLease, int maxLeases,
    Clock clock, int maxDeliveries) {
  public static final Duration LEASE_TIMEOUT_DEFAULT = Duration.ofSeconds(30);
  public static final int MAX_SEGMENTS_PER_LEASE_DEFAULT = 4;
  public static final int MAX_LEASES_DEFAULT = 256;
  public static final int MAX_DELIVERIES_DEFAULT = 16;

  public GroupSettings {
    Objects.requireNonNull(clock, "clock");
    if (leaseTimeout.isNegative() || leaseTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid lease timeout: " + leaseTimeout);
    }
    if (maxSegmentsPerLease < 1 || maxSegmentsPerLease > 1000) {
      throw new IllegalArgumentException("Invalid segments per lease: " + maxSegmentsPerLease
          + " (1 to 1000)");
    }
    if (maxLeases < 1 || maxLeases > 10_000) {
      throw new IllegalArgumentException("Invalid open lease bound: " + maxLeases
          + " (1 to 10000)");
    }
    if (maxDeliveries < 1 || maxDeliveries > 10_000) {
      throw new IllegalArgumentException("Invalid delivery bound: " + maxDeliveries
          + " (1 to 10000)");
    }
  }

  public GroupSettings(Duration leaseTimeout, int maxSegmentsPerLease, int maxLeases, Clock clock) {
    this(leaseTimeout, maxSegmentsPerLease, maxLeases, clock, MAX_DELIVERIES_DEFAULT);
  }

  public static GroupSettings defaults() {
    return new GroupSettings(LEASE_TIMEOUT_DEFAULT, MAX_SEGMENTS_PER_LEASE_DEFAULT,
        MAX_LEASES_DEFAULT, Clock.systemUTC());
  }

  public GroupSettings withLeaseTimeout(Duration timeout) {
    return new GroupSettings(timeout, maxSegmentsPerLease, maxLeases, clock, maxDeliveries);
  }

  public GroupSettings withClock(Clock newClock) {
    return new GroupSettings(leaseTimeout, maxSegmentsPerLease, maxLeases, newClock, maxDeliveries);
  }

  public GroupSettings withMaxDeliveries(int deliveries) {
    return new GroupSettings(leaseTimeout, maxSegmentsPerLease, maxLeases, clock, deliveries);
  }
}
