package io.verglas.cache.awareness;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Time-decayed access counts by logical coordinates (table, partition, column).
 *
 * <p>Design: each coordinate holds a count that halves every {@code halfLife}: a read adds 1 to
 * the count decayed to now, so a column read once an hour ago weighs half a column read now, and
 * heat follows the workload without a window to tune. Decay is applied lazily (at update and at
 * read), with time from an injected nanosecond clock. The ledger is fed by the drainer from
 * {@link HeatSamples} and read by the prefetcher and the admin endpoint, never by the serving
 * path, so a monitor is enough.
 *
 * <p>Memory: at most {@code maxEntries} coordinates; past that the coldest tenth is forgotten in
 * one sweep (amortized, so a stream of new coordinates costs O(1) each on average).
 */
final class HeatLedger {
  /** One coordinate's heat, for reports and prefetch plans. */
  record Heat(HeatCoordinates at, double heat) {}

  private static final class Count {
    double value;
    long at;
  }

  private final double halfLifeNanos;
  private final int maxEntries;
  private final LongSupplier nanos;
  private final Map<HeatCoordinates, Count> counts = new HashMap<>();
  private long forgotten;

  HeatLedger(long halfLifeNanos, int maxEntries, LongSupplier nanos) {
    if (halfLifeNanos <= 0 || maxEntries <= 0) {
      throw new IllegalArgumentException("Invalid heat ledger: half-life " + halfLifeNanos
          + " ns, " + maxEntries + " entries (both must be > 0)");
    }
    this.halfLifeNanos = halfLifeNanos;
    this.maxEntries = maxEntries;
    this.nanos = nanos;
  }

  /** Counts one read at {@code at}, now. */
  synchronized void record(HeatCoordinates at) {
    add(at, 1);
  }

  /**
   * Adds {@code heat} (heat restored from a saved ledger, already decayed to now) to the
   * coordinate's heat now.
   */
  synchronized void restore(HeatCoordinates at, double heat) {
    if (!(heat >= 0) || Double.isInfinite(heat)) {
      throw new IllegalArgumentException("Invalid heat of " + at + ": " + heat + " (must be >= 0)");
    }
    add(at, heat);
  }

  /** At most {@code limit} coordinates of every table with their heat now, hottest first. */
  synchronized List<Heat> hottest(int limit) {
    long now = nanos.getAsLong();
    List<Heat> heats = new ArrayList<>(counts.size());
    counts.forEach((at, count) -> heats.add(new Heat(at, decayed(count, now))));
    heats.sort(Comparator.comparingDouble(Heat::heat).reversed());
    return heats.size() <= limit ? heats : new ArrayList<>(heats.subList(0, limit));
  }

  /** The table's coordinates with their heat now, hottest first. */
  synchronized List<Heat> table(String table) {
    long now = nanos.getAsLong();
    List<Heat> heats = new ArrayList<>();
    counts.forEach((at, count) -> {
      if (at.table().equals(table)) {
        heats.add(new Heat(at, decayed(count, now)));
      }
    });
    heats.sort(Comparator.comparingDouble(Heat::heat).reversed());
    return heats;
  }

  synchronized int size() {
    return counts.size();
  }

  /** Coordinates forgotten to keep within the bound. */
  synchronized long forgotten() {
    return forgotten;
  }

  private void add(HeatCoordinates at, double amount) {
    long now = nanos.getAsLong();
    Count count = counts.computeIfAbsent(at, c -> new Count());
    count.value = decayed(count, now) + amount;
    count.at = now;
    if (counts.size() > maxEntries) {
      forgetColdest(now);
    }
  }

  private double decayed(Count count, long now) {
    if (count.value == 0) {
      return 0;
    }
    long elapsed = Math.max(0, now - count.at);
    return count.value * Math.pow(0.5, elapsed / halfLifeNanos);
  }

  private void forgetColdest(long now) {
    List<Map.Entry<HeatCoordinates, Count>> entries = new ArrayList<>(counts.entrySet());
    entries.sort(Comparator.comparingDouble(e -> decayed(e.getValue(), now)));
    int drop = Math.max(1, counts.size() - maxEntries + maxEntries / 10);
    for (int i = 0; i < drop && i < entries.size(); i++) {
      counts.remove(entries.get(i).getKey());
    }
    forgotten += drop;
  }
}
