package io.verglas.cli.local;

import io.verglas.cli.flink.FlinkClusterConfig;
import io.verglas.cli.flink.FlinkSessionCluster;
import io.verglas.net.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A session cluster for a local stack in {@code stackDir}, shared by the session cluster tests:
 * a JobManager and a TaskManager, each a process of its own started from Flink's entry points
 * with flink-conf/config.yaml, checkpointing with RocksDB (incremental) to the stack's bucket
 * through the cache node's S3 endpoint (Flink's S3 filesystem plugin).
 *
 * <p>The cluster starts before the stack, so the stack's S3 port and job credentials are fixed
 * beforehand: a filesystem plugin reads its endpoint and keys from the cluster's configuration
 * at process start. {@link #stack} gives the stack's configuration that matches.
 */
final class TestingSessionCluster implements AutoCloseable {
  private final FlinkSessionCluster cluster;
  private final Path stackDir;
  private final int s3Port;

  private TestingSessionCluster(FlinkSessionCluster cluster, Path stackDir, int s3Port) {
    this.cluster = cluster;
    this.stackDir = stackDir;
    this.s3Port = s3Port;
  }

  /**
   * Starts the cluster with {@code slots} task slots; its files go to {@code target/NAME},
   * emptied first (the processes' logs outlive the test for a look after a failure).
   */
  static TestingSessionCluster start(Path stackDir, String name, int slots) throws IOException {
    int s3Port = LoopbackPorts.free("the stack's S3 endpoint");
    LocalCredentials credentials = LocalCredentials.loadOrCreate(
        Files.createDirectories(stackDir).resolve("credentials.json"));
    FlinkSessionCluster cluster = FlinkSessionCluster.start(FlinkClusterConfig.builder(clusterDir(name))
        .taskSlots(slots).jobManagerMemory("768m").taskManagerMemory("1280m")
        .checkpointDir("s3://warehouse/_flink")
        .set("s3.endpoint", "http://127.0.0.1:" + s3Port)
        .set("s3.access-key", credentials.jobAccessKey())
        .set("s3.secret-key", credentials.jobSecretKey())
        .set("restart-strategy.exponential-delay.initial-backoff", "500ms")
        // the REST API serves job details from a cache of this age (3 s by default): the
        // recovery measurement polls them every 50 ms
        .set("web.refresh-interval", "100ms")
        .build());
    return new TestingSessionCluster(cluster, stackDir, s3Port);
  }

  FlinkSessionCluster cluster() {
    return cluster;
  }

  URI restUrl() {
    return cluster.restUrl();
  }

  /** A small stack in the stack directory whose jobs run on this cluster. */
  LocalConfig.Builder stack() {
    return onThisCluster(TestingOrders.smallStack(stackDir));
  }

  /** {@code config} with the S3 port and the Flink cluster of this cluster's stack. */
  LocalConfig.Builder onThisCluster(LocalConfig.Builder config) {
    return config.s3Port(s3Port).flinkCluster(cluster.restUrl());
  }

  @Override
  public void close() {
    cluster.close();
  }

  private static Path clusterDir(String name) throws IOException {
    Path clusterDir = Path.of("target", name).toAbsolutePath();
    if (Files.exists(clusterDir)) {
      try (Stream<Path> files = Files.walk(clusterDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
    return clusterDir;
  }
}
