package io.verglas.cache.awareness;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Gates every origin-facing read of metadata warming: clients first, then the byte rate, then a
 * concurrency slot.
 *
 * <p>Yielding: while client requests wait for an origin slot, warming starts no new read (it
 * polls every {@value #YIELD_POLL_MILLIS} ms), for at most {@code maxYieldNanos} per read so a
 * saturated origin delays warming without starving it. Reads already started finish. The byte
 * rate is charged with the origin bytes each read actually cost (cache hits are free).
 */
final class WarmingThrottle {
  private static final long YIELD_POLL_MILLIS = 5;

  private final Semaphore slots;
  private final ByteRate rate;
  private final BooleanSupplier clientsWaiting;
  private final ByteRate.Sleeper sleeper;
  private final long maxYieldNanos;
  private final AwarenessCounters counters;

  WarmingThrottle(int concurrency, ByteRate rate, BooleanSupplier clientsWaiting,
      ByteRate.Sleeper sleeper, long maxYieldNanos, AwarenessCounters counters) {
    this.slots = new Semaphore(concurrency);
    this.rate = rate;
    this.clientsWaiting = clientsWaiting;
    this.sleeper = sleeper;
    this.maxYieldNanos = maxYieldNanos;
    this.counters = counters;
  }

  /** Blocks until a read may start; pair with {@link #afterRead}. */
  void beforeRead() throws InterruptedException {
    yieldToClients();
    rate.awaitCredit();
    slots.acquire();
  }

  /** Ends a read started after {@link #beforeRead}, charging the origin bytes it cost. */
  void afterRead(long originBytes) {
    slots.release();
    rate.consume(originBytes);
  }

  private void yieldToClients() throws InterruptedException {
    long waited = 0;
    boolean yielded = false;
    while (waited < maxYieldNanos && clientsWaiting.getAsBoolean()) {
      yielded = true;
      long poll = TimeUnit.MILLISECONDS.toNanos(YIELD_POLL_MILLIS);
      sleeper.sleepNanos(poll);
      waited += poll;
    }
    if (yielded) {
      counters.yields.increment();
    }
  }
}
