package io.verglas.ingest.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * A lock-free latency histogram with fixed bucket bounds in milliseconds (Prometheus style:
 * cumulative counts per upper bound, plus a sum and a count).
 *
 * <p>Design: recording is one array scan over {@value #BUCKETS} bounds and two adder increments,
 * cheap enough for every batch. Fixed bounds keep snapshots mergeable and the exposition stable;
 * percentiles read from them are upper bounds of the bucket holding the rank, which is what an
 * SLO check needs.
 */
public final class LatencyHistogram {
  /** Upper bounds in milliseconds; the last bucket is +Inf. */
  static final double[] BOUNDS_MS = {1, 2, 5, 10, 20, 50, 100, 150, 200, 250, 300, 500, 750, 1000,
      2000, 5000, 10000, 30000};
  static final int BUCKETS = BOUNDS_MS.length + 1;

  private final LongAdder[] counts = new LongAdder[BUCKETS];
  private final LongAdder sumNanos = new LongAdder();

  public LatencyHistogram() {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] = new LongAdder();
    }
  }

  public void recordNanos(long nanos) {
    double millis = Math.max(0, nanos) / 1e6;
    int bucket = 0;
    while (bucket < BOUNDS_MS.length && millis > BOUNDS_MS[bucket]) {
      bucket++;
    }
    counts[bucket].increment();
    sumNanos.add(Math.max(0, nanos));
  }

  public Snapshot snapshot() {
    long[] values = new long[BUCKETS];
    for (int i = 0; i < BUCKETS; i++) {
      values[i] = counts[i].sum();
    }
    return new Snapshot(values, sumNanos.sum());
  }

  /** Counts per bucket (not cumulative) and the sum of all recorded latencies. */
  public record Snapshot(long[] counts, long sumNanos) {
    public long count() {
      long total = 0;
      for (long c : counts) {
        total += c;
      }
      return total;
    }

    /**
     * The upper bound (ms) of the bucket holding the {@code quantile} rank, or
     * {@code Double.POSITIVE_INFINITY} if it is beyond the last bound; 0 when empty.
     */
    public double quantileUpperBoundMillis(double quantile) {
      long total = count();
      if (total == 0) {
        return 0;
      }
      long rank = (long) Math.ceil(quantile * total);
      long seen = 0;
      for (int i = 0; i < counts.length; i++) {
        seen += counts[i];
        if (seen >= rank) {
          return i < BOUNDS_MS.length ? BOUNDS_MS[i] : Double.POSITIVE_INFINITY;
        }
      }
      return Double.POSITIVE_INFINITY;
    }
  }
}
