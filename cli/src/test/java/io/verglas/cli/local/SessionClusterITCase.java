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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stack's jobs on a real session cluster ({@link TestingSessionCluster}). The stack submits
 * both jobs' shaded jars over the REST API ({@code verglas local --flink-cluster URL}); rows
 * pushed over Flight must come back from the Iceberg table exactly once:
 * <ol>
 *   <li>across a SIGKILL of the TaskManager mid-stream and its replacement by a new one (the
 *       job restores from its last checkpoint in object storage), at parallelism 1;
 *   <li>across rescaling through savepoints, 1 to 2 to 1: at stop the materializer leaves a
 *       savepoint in the bucket, and the next start (at another parallelism) resumes from it.
 *       Each run pushes new keys and rewrites the last 100 keys of the run before: a key
 *       index lost or split wrongly in the rescale would show as a duplicate or a missing id.
 * </ol>
 * One flow rather than two tests: a second cluster and a second first start would double the
 * test's time (about 100 s for the first run, 40 s for each later one on a loaded machine).
 */
class SessionClusterITCase {
  private static final int REWRITTEN = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Started by the test, on the cluster. */
  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().startedByTest().build();
  private TestingSessionCluster cluster;

  @AfterEach
  void stop() {
    local.stop();
    if (cluster != null) {
      cluster.close();
    }
  }

  /** What the Prometheus endpoints of flink-conf's port range answer (a process per port in use). */
  private static List<String> prometheusScrapes() throws Exception {
    List<String> scrapes = new ArrayList<>();
    HttpClient http = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(2)).build();
    for (int port = 9249; port <= 9259; port++) {
      try {
        HttpResponse<String> scrape = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        if (scrape.statusCode() == 200) {
          scrapes.add(scrape.body());
        }
      } catch (java.net.ConnectException nothingThere) {
        // the port is not in use
      }
    }
    return scrapes;
  }

  @Test
  void materializerKeepsEveryRowOnceAcrossTaskManagerKillAndRescaleOneTwoOne() throws Exception {
    // parallelism 2 and the maintenance job: three slots
    cluster = TestingSessionCluster.start(local.dataDir(), "session-cluster-it", 3);

    LocalStack stack = local.start(config -> cluster.onThisCluster(config).parallelism(1));
    assertThat(new FlinkRestClient(cluster.restUrl()).jobs()).extracting(JobSummary::name)
        .containsExactlyInAnyOrder("verglas-materializer", "verglas-maintenance");
    assertThat(String.join("\n", prometheusScrapes()))
        .as("flink-conf's Prometheus reporter on the JobManager and the TaskManager")
        .contains("flink_jobmanager_numRegisteredTaskManagers", "flink_taskmanager_Status_JVM_CPU_Load");
    EndpointsFile endpoints = stack.endpoints();
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    TestingOrders.push(endpoints, 0, 500);
    assertThat(awaitIds(catalog, 500)).containsExactlyElementsOf(ids(0, 500));

    cluster.cluster().killTaskManager();
    TestingOrders.push(endpoints, 500, 500);   // acknowledged while no TaskManager runs
    cluster.cluster().startTaskManager();
    TestingOrders.push(endpoints, 1000, 500);
    assertThat(awaitIds(catalog, 1500)).containsExactlyElementsOf(ids(0, 1500));
    List<String> savepoints = new ArrayList<>(List.of(stopWithSavepoint()));

    int rows = 1500;
    for (int parallelism : new int[] {2, 1}) {
      stack = local.start(config -> cluster.onThisCluster(config).parallelism(parallelism));
      assertThat(materializerParallelism()).as("materializer's parallelism").isEqualTo(parallelism);
      endpoints = stack.endpoints();
      catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
      TestingOrders.push(endpoints, rows - REWRITTEN, REWRITTEN + 300);
      rows += 300;
      assertThat(awaitIds(catalog, rows)).as("ids at parallelism %d", parallelism)
          .containsExactlyElementsOf(ids(0, rows));
      savepoints.add(stopWithSavepoint());
    }
    assertThat(savepoints).doesNotHaveDuplicates();
  }

  /** The table's ids, sorted, once it holds {@code expected} rows or after two minutes. */
  private static List<Long> awaitIds(Catalog catalog, int expected) throws Exception {
    return TestingOrders.awaitIds(catalog, expected, Duration.ofMinutes(2));
  }

  /** Stops the stack; the materializer leaves a savepoint in the bucket, whose path this answers. */
  private String stopWithSavepoint() throws Exception {
    local.stop();
    String savepoint = Files.readString(local.dataDir().resolve("materializer-savepoint")).strip();
    assertThat(savepoint).startsWith("s3://warehouse/_flink/savepoints/savepoint-");
    return savepoint;
  }

  /** The running materializer's operators' largest parallelism, as the cluster reports it. */
  private int materializerParallelism() throws Exception {
    String id = new FlinkRestClient(cluster.restUrl()).jobs().stream()
        .filter(job -> job.name().equals("verglas-materializer")
            && !List.of("FINISHED", "CANCELED", "FAILED").contains(job.state()))
        .map(JobSummary::id).findFirst().orElseThrow();
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(cluster.restUrl().resolve("/jobs/" + id)).build(),
        HttpResponse.BodyHandlers.ofString());
    int parallelism = 0;
    for (JsonNode vertex : JSON.readTree(response.body()).path("vertices")) {
      parallelism = Math.max(parallelism, vertex.path("parallelism").asInt());
    }
    return parallelism;
  }
}
