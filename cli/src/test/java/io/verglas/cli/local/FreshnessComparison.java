package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test of the default suite (its name matches no test pattern; run it
 * with {@code mvn -B -pl cli -am verify -Pfreshness}): end-to-end freshness
 * ({@link AckToVisible}) on the local stack with its materializer on an embedded MiniCluster and
 * then on a session cluster ({@link TestingSessionCluster}), at the same load, parallelism 1, a
 * checkpoint (and so a commit) every second. Prints p50, p99 and max of each and writes them to
 * {@code target/freshness.json}.
 */
class FreshnessComparison {
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
    String json = "{\"batches\": " + BATCHES + ", \"rows_per_batch\": " + AckToVisible.ROWS
        + ", \"period_ms\": " + AckToVisible.PERIOD_MS + ", \"checkpoint_interval_ms\": 1000,\n"
        + " \"minicluster\": " + AckToVisible.summary(mini) + ",\n \"session_cluster\": "
        + AckToVisible.summary(session) + "}\n";
    Files.writeString(Path.of("target", "freshness.json"), json);
    System.out.println("freshness (ack -> visible through the cache, ms): " + json);
    // sorted: the first is the least; every batch was found after its acknowledgement
    assertThat(mini).hasSize(BATCHES);
    assertThat(mini[0]).isPositive();
    assertThat(session).hasSize(BATCHES);
    assertThat(session[0]).isPositive();
  }

  private double[] measure(LocalConfig config) throws Exception {
    try (LocalStack stack = LocalStack.start(config)) {
      return AckToVisible.measure(stack.endpoints(), BATCHES, -1, AckToVisible.Drill.NONE).sortedMs();
    }
  }
}
