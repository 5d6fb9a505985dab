package io.verglas.clock;

import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014) packed into one long.
 *
 * <p>Design: the upper 48 bits hold wall-clock milliseconds, the lower 16 bits a logical counter.
 * {@link #tick()} never returns a value less than or equal to one it returned before, even when
 * the wall clock steps back, so timestamps from one process are strictly increasing and close to
 * real time. {@link #observe(long)} folds in a timestamp seen from another process so that
 * causally later events always compare greater. Comparing two stamps as plain longs gives the
 * clock's order; ties between processes are broken by the caller (see {@code WalPosition}).
 */
public final class HybridLogicalClock {
  static final int LOGICAL_BITS = 16;
  static final long LOGICAL_MASK = (1L << LOGICAL_BITS) - 1;

  private final LongSupplier wallMillis;
  private long last;

  public HybridLogicalClock(LongSupplier wallMillis) {
    this.wallMillis = wallMillis;
  }

  public static HybridLogicalClock system() {
    return new HybridLogicalClock(System::currentTimeMillis);
  }

  /** Returns a stamp greater than every stamp this clock returned or observed before. */
  public synchronized long tick() {
    long physical = wallMillis.getAsLong() << LOGICAL_BITS;
    last = Math.max(physical, last + 1);
    return last;
  }

  /** Advances this clock past a stamp received from elsewhere. */
  public synchronized long observe(long remoteStamp) {
    long physical = wallMillis.getAsLong() << LOGICAL_BITS;
    last = Math.max(physical, Math.max(last, remoteStamp) + 1);
    return last;
  }

  public static long physicalMillis(long stamp) {
    return stamp >>> LOGICAL_BITS;
  }

  public static int logical(long stamp) {
    return (int) (stamp & LOGICAL_MASK);
  }
}
