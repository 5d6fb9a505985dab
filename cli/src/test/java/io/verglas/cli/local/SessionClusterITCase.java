package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.catalog.Catalogs;
import io.verglas.cli.flink.FlinkClusterConfig;
import io.verglas.cli.flink.FlinkRestClient;
import io.verglas.cli.flink.FlinkSessionCluster;
import io.verglas.cli.flink.JobSummary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stack's jobs on a real session cluster: a JobManager and a TaskManager, each a process of
 * its own started from Flink's entry points with flink-conf/config.yaml, checkpointing with
 * RocksDB (incremental) to the stack's bucket through the cache node's S3 endpoint (Flink's S3
 * filesystem plugin). The stack submits both jobs' shaded jars over the REST API
 * ({@code verglas local --flink-cluster URL}); rows pushed over Flight must come back from the
 * Iceberg table exactly once, also across a SIGKILL of the TaskManager mid-stream and its
 * replacement by a new one (the job restores from its last checkpoint in object storage); at
 * stop the materializer leaves a savepoint there for the stack's next start.
 *
 * <p>The cluster starts first, so the stack's S3 port and job credentials are fixed beforehand:
 * a filesystem plugin reads its endpoint and keys from the cluster's configuration at process
 * start.
 */
class SessionClusterITCase {
  @TempDir Path dir;
  private FlinkSessionCluster cluster;
  private LocalStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      stack.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void materializerOnSessionClusterCommitsEveryRowOnceAcrossTaskManagerKill() throws Exception {
    Path stackDir = dir.resolve("stack");
    int s3Port = freePort();
    LocalCredentials credentials = LocalCredentials.loadOrCreate(
        Files.createDirectories(stackDir).resolve("credentials.json"));
    cluster = FlinkSessionCluster.start(FlinkClusterConfig.builder(clusterDir())
        .taskSlots(2).jobManagerMemory("768m").taskManagerMemory("1280m")
        .checkpointDir("s3://warehouse/_flink")
        .set("s3.endpoint", "http://127.0.0.1:" + s3Port)
        .set("s3.access-key", credentials.jobAccessKey())
        .set("s3.secret-key", credentials.jobSecretKey())
        .set("restart-strategy.exponential-delay.initial-backoff", "500ms")
        .build());

    stack = LocalStack.start(TestingOrders.smallStack(stackDir).s3Port(s3Port)
        .flinkCluster(cluster.restUrl()).build());
    FlinkRestClient rest = new FlinkRestClient(cluster.restUrl());
    assertThat(rest.jobs()).extracting(JobSummary::name)
        .containsExactlyInAnyOrder("verglas-materializer", "verglas-maintenance");

    EndpointsFile endpoints = stack.endpoints();
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    TestingOrders.push(endpoints, 0, 500);
    assertThat(awaitIds(catalog, 500)).containsExactlyElementsOf(ids(0, 500));

    cluster.killTaskManager();
    TestingOrders.push(endpoints, 500, 500);   // acknowledged while no TaskManager runs
    cluster.startTaskManager();
    TestingOrders.push(endpoints, 1000, 500);
    assertThat(awaitIds(catalog, 1500)).containsExactlyElementsOf(ids(0, 1500));

    // at stop the materializer leaves a savepoint in the bucket for the next start
    stack.close();
    stack = null;
    assertThat(Files.readString(stackDir.resolve("materializer-savepoint")))
        .startsWith("s3://warehouse/_flink/savepoints/savepoint-");
  }

  private static List<Long> ids(long first, int count) {
    return LongStream.range(first, first + count).boxed().toList();
  }

  /** The table's ids, sorted, once it holds {@code expected} rows or after two minutes. */
  private static List<Long> awaitIds(Catalog catalog, int expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    List<Long> ids = List.of();
    while (System.nanoTime() < deadline && ids.size() != expected) {
      Thread.sleep(300);
      Table table = catalog.loadTable(TestingOrders.ORDERS);
      List<Long> read = new ArrayList<>();
      if (table.currentSnapshot() != null) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          records.forEach(record -> read.add((Long) record.getField("id")));
        }
      }
      read.sort(null);
      ids = read;
    }
    return ids;
  }

  /** Under target/, emptied first: the processes' logs outlive the test for a look after a failure. */
  private static Path clusterDir() throws IOException {
    Path clusterDir = Path.of("target", "session-cluster-it").toAbsolutePath();
    if (Files.exists(clusterDir)) {
      try (Stream<Path> files = Files.walk(clusterDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
    return clusterDir;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
