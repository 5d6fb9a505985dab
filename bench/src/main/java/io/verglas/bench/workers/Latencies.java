package io.verglas.bench.workers;

import java.util.Arrays;

/** Dispatch latencies of one side, in nanoseconds, and their percentiles in milliseconds. */
record Latencies(long[] nanos) {
  double percentileMs(double p) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int index = Math.max(0, (int) Math.ceil(p * sorted.length) - 1);
    return Math.round(sorted[index] / 1e3) / 1e3;
  }
}
