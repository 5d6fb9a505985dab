package io.verglas.cli.local;

import io.verglas.sdk.QueryClient;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The freshness measurements' load and clock: after a first batch that creates the table, one
 * batch of {@value #ROWS} new rows every {@value #PERIOD_MS} ms, each timed from its
 * acknowledgement by the Flight server to the first read through the cache node that finds it
 * ({@code POST /v1/query} lookup of the batch's first key, polled every 20 ms). A drill may run
 * once, right after a given batch's acknowledgement (a TaskManager kill, say).
 */
final class AckToVisible {
  static final int ROWS = 100;
  static final long PERIOD_MS = 500;

  /** Something done once during the load, after batch {@code at} was acknowledged. */
  interface Drill {
    Drill NONE = () -> { };

    void run() throws Exception;
  }

  /** Per batch: nanoTime of its acknowledgement and of the read that first found it. */
  record Timings(long[] acked, long[] visible) {
    /** Each batch's milliseconds from acknowledgement to visible, sorted. */
    double[] sortedMs() {
      double[] ms = new double[acked.length];
      for (int i = 0; i < ms.length; i++) {
        ms[i] = (visible[i] - acked[i]) / 1e6;
      }
      Arrays.sort(ms);
      return ms;
    }

    /** The first batch acknowledged at or after {@code nanos}, or -1. */
    int firstAckedFrom(long nanos) {
      for (int i = 0; i < acked.length; i++) {
        if (acked[i] >= nanos) {
          return i;
        }
      }
      return -1;
    }
  }

  private AckToVisible() {}

  /** All ids the load writes: the first batch's and {@code batches} more, consecutive from 0. */
  static int rows(int batches) {
    return (batches + 1) * ROWS;
  }

  static Timings measure(EndpointsFile endpoints, int batches, int drillAt, Drill drill) throws Exception {
    TestingOrders.push(endpoints, 0, ROWS);   // creates the table; its first commit
    QueryClient queries = QueryClient.of(endpoints.s3Endpoint(), endpoints.catalogToken());
    awaitVisible(queries, 0, TimeUnit.MINUTES.toNanos(3));
    AtomicLongArray acked = new AtomicLongArray(batches);
    long[] visible = new long[batches];
    CompletableFuture<Void> poller = CompletableFuture.runAsync(() -> poll(queries, acked, visible));
    try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri())
        .token(endpoints.flightToken()).build();
        TableWriter writer = client.openWriter(TestingOrders.ORDERS)) {
      long next = System.nanoTime();
      for (int i = 0; i < batches; i++) {
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime())));
        next += TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
        TestingOrders.write(client, writer, firstId(i), ROWS);
        acked.set(i, System.nanoTime());
        if (i == drillAt) {
          drill.run();
        }
      }
    }
    poller.get(5, TimeUnit.MINUTES);
    long[] ackedNanos = new long[batches];
    for (int i = 0; i < batches; i++) {
      ackedNanos[i] = acked.get(i);
    }
    return new Timings(ackedNanos, visible);
  }

  static String summary(double[] sortedMs) {
    return String.format(Locale.ROOT, "{\"p50_ms\": %.0f, \"p99_ms\": %.0f, \"max_ms\": %.0f}",
        percentile(sortedMs, 0.50), percentile(sortedMs, 0.99), sortedMs[sortedMs.length - 1]);
  }

  private static long firstId(int batch) {
    return (long) (batch + 1) * ROWS;
  }

  /** Finds each acknowledged batch, in order, with a lookup of its first key. */
  private static void poll(QueryClient queries, AtomicLongArray acked, long[] visible) {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(8);
    for (int i = 0; i < visible.length && System.nanoTime() < deadline; ) {
      if (acked.get(i) != 0 && found(queries, firstId(i))) {
        visible[i++] = System.nanoTime();
      } else {
        sleep(20);
      }
    }
  }

  private static void awaitVisible(QueryClient queries, long id, long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (!found(queries, id)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot measure: id " + id + " never became visible");
      }
      sleep(100);
    }
  }

  private static boolean found(QueryClient queries, long id) {
    return !queries.lookup(TestingOrders.ORDERS, List.of(id)).rows().isEmpty();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot measure: interrupted", e);
    }
  }

  private static double percentile(double[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }
}
