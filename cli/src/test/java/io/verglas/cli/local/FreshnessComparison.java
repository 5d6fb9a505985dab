package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.sdk.QueryClient;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test of the default suite (its name matches no test pattern; run it
 * with {@code mvn -B -pl cli -am verify -Pfreshness}): end-to-end freshness, from a batch's
 * acknowledgement by the Flight server to the first read through the cache node that finds it
 * ({@code POST /v1/query} lookup of the batch's first key, polled every 20 ms), on the local
 * stack with its materializer on an embedded MiniCluster and then on a session cluster
 * ({@link TestingSessionCluster}), at the same load: one batch of {@value #ROWS} new rows every
 * {@value #PERIOD_MS} ms, parallelism 1, a checkpoint (and so a commit) every second. Prints
 * p50, p99 and max of each and writes them to {@code target/freshness.json}.
 */
class FreshnessComparison {
  private static final int ROWS = 100;
  private static final long PERIOD_MS = 500;
  private static final int BATCHES = Integer.getInteger("freshness.batches", 120);

  @TempDir Path dir;

  @Test
  void ackToVisibleThroughTheCacheOnMiniClusterAndSessionCluster() throws Exception {
    double[] mini = measure(TestingOrders.smallStack(dir.resolve("mini")).parallelism(1).build());
    double[] session;
    try (TestingSessionCluster cluster = TestingSessionCluster.start(dir.resolve("session"),
        "freshness-session-cluster", 2)) {
      session = measure(cluster.stack().parallelism(1).build());
    }
    String json = "{\"batches\": " + BATCHES + ", \"rows_per_batch\": " + ROWS
        + ", \"period_ms\": " + PERIOD_MS + ", \"checkpoint_interval_ms\": 1000,\n"
        + " \"minicluster\": " + summary(mini) + ",\n \"session_cluster\": " + summary(session) + "}\n";
    Files.writeString(Path.of("target", "freshness.json"), json);
    System.out.println("freshness (ack -> visible through the cache, ms): " + json);
    // sorted: the first is the least; every batch was found after its acknowledgement
    assertThat(mini).hasSize(BATCHES);
    assertThat(mini[0]).isPositive();
    assertThat(session).hasSize(BATCHES);
    assertThat(session[0]).isPositive();
  }

  /** Each batch's milliseconds from acknowledgement to visible, sorted. */
  private double[] measure(LocalConfig config) throws Exception {
    try (LocalStack stack = LocalStack.start(config)) {
      EndpointsFile endpoints = stack.endpoints();
      TestingOrders.push(endpoints, 0, ROWS);   // creates the table; its first commit
      QueryClient queries = QueryClient.of(endpoints.s3Endpoint(), endpoints.catalogToken());
      awaitVisible(queries, 0, TimeUnit.MINUTES.toNanos(3));
      AtomicLongArray acked = new AtomicLongArray(BATCHES);
      long[] visible = new long[BATCHES];
      CompletableFuture<Void> poller = CompletableFuture.runAsync(() -> poll(queries, acked, visible));
      try (VerglasClient client = VerglasClient.builder().uri(endpoints.flightUri())
          .token(endpoints.flightToken()).build();
          TableWriter writer = client.openWriter(TestingOrders.ORDERS)) {
        long next = System.nanoTime();
        for (int i = 0; i < BATCHES; i++) {
          Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime())));
          next += TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
          TestingOrders.write(client, writer, firstId(i), ROWS);
          acked.set(i, System.nanoTime());
        }
      }
      poller.get(5, TimeUnit.MINUTES);
      double[] ms = new double[BATCHES];
      for (int i = 0; i < BATCHES; i++) {
        ms[i] = (visible[i] - acked.get(i)) / 1e6;
      }
      Arrays.sort(ms);
      return ms;
    }
  }

  private static long firstId(int batch) {
    return (long) (batch + 1) * ROWS;
  }

  /** Finds each acknowledged batch, in order, with a lookup of its first key. */
  private static void poll(QueryClient queries, AtomicLongArray acked, long[] visible) {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
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

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot measure: interrupted", e);
    }
  }

  private static String summary(double[] sortedMs) {
    return String.format(java.util.Locale.ROOT, "{\"p50_ms\": %.0f, \"p99_ms\": %.0f, \"max_ms\": %.0f}",
        percentile(sortedMs, 0.50), percentile(sortedMs, 0.99), sortedMs[sortedMs.length - 1]);
  }

  private static double percentile(double[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }
}
