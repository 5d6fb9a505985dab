package io.verglas.cli.local;

import static io.verglas.cli.local.TestingOrders.ids;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.Catalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement of the {@code freshness} profile (with {@link FreshnessComparison}): recovery
 * after a TaskManager crash on a session cluster, under the freshness load ({@link
 * AckToVisible}). A third of the way in, the TaskManager is SIGKILLed and a new one started at
 * once, as a process supervisor would. Measured from the kill, through Flink's REST API polled
 * every 50 ms ({@link RestartWatch}): when the JobManager has restarted every subtask of the
 * materializer (each has an attempt newer than at the kill) and when every one of those runs;
 * then when the first batch acknowledged after the kill is visible through the cache, and the
 * worst ack-to-visible of any batch. Every row must be in the table exactly once at the end.
 * Writes {@code target/recovery.json}.
 */
class RecoveryMeasurement {
  private static final int BATCHES = Integer.getInteger("freshness.batches", 120);

  @TempDir Path dir;

  @Test
  void recoveryAfterTaskManagerKillUnderLoad() throws Exception {
    try (TestingSessionCluster cluster = TestingSessionCluster.start(dir.resolve("stack"),
        "recovery-session-cluster", 2);
        LocalStack stack = LocalStack.start(cluster.stack().parallelism(1).build())) {
      long[] killedAt = new long[1];
      @SuppressWarnings("unchecked")
      CompletableFuture<RestartWatch.Recovery>[] recovery = new CompletableFuture[1];
      AckToVisible.Timings timings = AckToVisible.measure(stack.endpoints(), BATCHES, BATCHES / 3, () -> {
        RestartWatch materializer = RestartWatch.of(cluster.restUrl(), "verglas-materializer");
        SubtaskAttempts atKill = materializer.attempts();
        killedAt[0] = System.nanoTime();
        cluster.cluster().killTaskManager();
        recovery[0] = CompletableFuture.supplyAsync(() -> {   // the load goes on meanwhile
          cluster.cluster().startTaskManager();
          return materializer.await(atKill, Duration.ofMinutes(5));
        });
      });
      RestartWatch.Recovery recovered = recovery[0].get(5, TimeUnit.MINUTES);
      int firstAfter = timings.firstAckedFrom(killedAt[0]);
      double[] sorted = timings.sortedMs();
      String json = String.format(Locale.ROOT, "{\"batches\": %d, \"kill_after_batch\": %d,"
          + " \"job_restarted_after_kill_s\": %.1f, \"tasks_running_after_kill_s\": %.1f,"
          + " \"first_batch_after_kill_visible_after_kill_s\": %.1f,"
          + " \"max_ack_to_visible_ms\": %.0f, \"ack_to_visible\": %s}%n",
          BATCHES, BATCHES / 3, (recovered.restartedAt() - killedAt[0]) / 1e9,
          (recovered.runningAt() - killedAt[0]) / 1e9,
          (timings.visible()[firstAfter] - killedAt[0]) / 1e9, sorted[sorted.length - 1],
          AckToVisible.summary(sorted));
      Files.writeString(Path.of("target", "recovery.json"), json);
      System.out.println("recovery after a TaskManager SIGKILL: " + json);

      EndpointsFile endpoints = stack.endpoints();
      Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
      int rows = AckToVisible.rows(BATCHES);
      assertThat(TestingOrders.awaitIds(catalog, rows, Duration.ofMinutes(2)))
          .as("every acknowledged row once").containsExactlyElementsOf(ids(0, rows));
      assertThat(recovered.restartedAt()).isGreaterThan(killedAt[0])
          .isLessThanOrEqualTo(recovered.runningAt());
    }
  }
}
