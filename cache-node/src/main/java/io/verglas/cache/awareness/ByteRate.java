package io.verglas.cache.awareness;

import java.util.function.LongSupplier;

/**
 * A token bucket of bytes per second that may go into debt.
 *
 * <p>Design: warming learns how many origin bytes a read cost only after it (a metadata object
 * may already be cached, a footer's length is in its trailer), so reads are charged afterwards
 * ({@link #consume}) and a reader waits before starting until the bucket is out of debt
 * ({@link #awaitCredit}). Over time the rate holds; a single read may overshoot by its own size.
 * The bucket holds at most one second of credit, so an idle warmer does not bank a burst. Time
 * and sleeping are injected, so tests advance a clock instead of sleeping.
 */
final class ByteRate {
  /** Sleeps for a while; interruptible. */
  @FunctionalInterface
  interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;

    Sleeper THREAD = nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
  }

  private static final long MIN_SLEEP_NANOS = 1_000_000;

  private final double bytesPerNano;
  private final double capacity;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private double tokens;
  private long refilledAt;

  ByteRate(long bytesPerSecond, LongSupplier nanoTime, Sleeper sleeper) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("Invalid byte rate: " + bytesPerSecond + " (must be > 0)");
    }
    this.bytesPerNano = bytesPerSecond / 1e9;
    this.capacity = bytesPerSecond;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
    this.tokens = capacity;
    this.refilledAt = nanoTime.getAsLong();
  }

  /** Waits until the bucket is not in debt. */
  void awaitCredit() throws InterruptedException {
    while (true) {
      long wait = nanosUntilCredit();
      if (wait <= 0) {
        return;
      }
      sleeper.sleepNanos(Math.max(wait, MIN_SLEEP_NANOS));
    }
  }

  /** Charges bytes read. */
  synchronized void consume(long bytes) {
    refill();
    tokens -= bytes;
  }

  private synchronized long nanosUntilCredit() {
    refill();
    return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / bytesPerNano);
  }

  private void refill() {
    long now = nanoTime.getAsLong();
    tokens = Math.min(capacity, tokens + (now - refilledAt) * bytesPerNano);
    refilledAt = now;
  }
}
