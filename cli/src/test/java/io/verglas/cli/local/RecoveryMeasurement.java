package io.verglas.cli.local;

import static io.verglas.cli.local.TestingOrders.ids;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.catalog.Catalogs;
import io.verglas.cli.flink.FlinkRestClient;
import io.verglas.cli.flink.JobSummary;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
 * once, as a process supervisor would. Measured from the kill: when every task of the
 * materializer runs again (Flink's REST API, polled every 50 ms); when the first batch
 * acknowledged after the kill is visible through the cache; and the worst ack-to-visible of any
 * batch. Every row must be in the table exactly once at the end. Writes {@code
 * target/recovery.json}.
 */
class RecoveryMeasurement {
  private static final int BATCHES = Integer.getInteger("freshness.batches", 120);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void recoveryAfterTaskManagerKillUnderLoad() throws Exception {
    try (TestingSessionCluster cluster = TestingSessionCluster.start(dir.resolve("stack"),
        "recovery-session-cluster", 2);
        LocalStack stack = LocalStack.start(cluster.stack().parallelism(1).build())) {
      long[] killedAt = new long[1];
      @SuppressWarnings("unchecked")
      CompletableFuture<Long>[] running = new CompletableFuture[1];
      AckToVisible.Timings timings = AckToVisible.measure(stack.endpoints(), BATCHES, BATCHES / 3, () -> {
        killedAt[0] = System.nanoTime();
        cluster.cluster().killTaskManager();
        running[0] = CompletableFuture.supplyAsync(() -> {   // the load goes on meanwhile
          cluster.cluster().startTaskManager();
          return awaitRestarted(cluster.restUrl());
        });
      });
      long runningAt = running[0].get(5, TimeUnit.MINUTES);
      int firstAfter = timings.firstAckedFrom(killedAt[0]);
      double[] sorted = timings.sortedMs();
      String json = String.format(Locale.ROOT, "{\"batches\": %d, \"kill_after_batch\": %d,"
          + " \"tasks_running_after_kill_s\": %.1f, \"first_batch_after_kill_visible_after_kill_s\": %.1f,"
          + " \"max_ack_to_visible_ms\": %.0f, \"ack_to_visible\": %s}%n",
          BATCHES, BATCHES / 3, (runningAt - killedAt[0]) / 1e9,
          (timings.visible()[firstAfter] - killedAt[0]) / 1e9, sorted[sorted.length - 1],
          AckToVisible.summary(sorted));
      Files.writeString(Path.of("target", "recovery.json"), json);
      System.out.println("recovery after a TaskManager SIGKILL: " + json);

      EndpointsFile endpoints = stack.endpoints();
      Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
      int rows = AckToVisible.rows(BATCHES);
      assertThat(TestingOrders.awaitIds(catalog, rows, Duration.ofMinutes(2)))
          .as("every acknowledged row once").containsExactlyElementsOf(ids(0, rows));
      assertThat(runningAt).isGreaterThan(killedAt[0]);
    }
  }

  /**
   * nanoTime when the materializer, once the JobManager has noticed the lost TaskManager (some
   * task not RUNNING), has every task RUNNING again.
   */
  private static long awaitRestarted(URI restUrl) {
    HttpClient http = HttpClient.newHttpClient();
    FlinkRestClient rest = new FlinkRestClient(restUrl);
    await("the JobManager to notice the lost TaskManager", () -> !materializerRunning(rest, http, restUrl));
    await("the materializer to run again", () -> materializerRunning(rest, http, restUrl));
    return System.nanoTime();
  }

  private static void await(String what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot measure recovery: waited 5 minutes for " + what);
      }
      AckToVisible.sleep(50);
    }
  }

  private static boolean materializerRunning(FlinkRestClient rest, HttpClient http, URI restUrl) {
    String id = rest.jobs().stream().filter(job -> job.name().equals("verglas-materializer")
        && job.state().equals("RUNNING")).map(JobSummary::id).findFirst().orElse(null);
    return id != null && allRunning(http, restUrl.resolve("/jobs/" + id));
  }

  private static boolean allRunning(HttpClient http, URI job) {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(job).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode vertices = JSON.readTree(response.body()).path("vertices");
      for (JsonNode vertex : vertices) {
        if (!vertex.path("status").asText().equals("RUNNING")) {
          return false;
        }
      }
      return vertices.size() > 0;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot measure: interrupted", e);
    }
  }
}
