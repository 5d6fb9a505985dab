package io.verglas.bench.maintenance;

import io.verglas.catalog.Catalogs;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.maintenance.api.RewriteDataFiles;
import org.apache.iceberg.flink.maintenance.api.TableMaintenance;

/**
 * The peer: Iceberg's Flink maintenance {@code RewriteDataFiles} alone, on a copy of the table
 * (another catalog entry on the same metadata file, so both start from identical files), as a
 * Flink job on a MiniCluster. Timed from the job running to the rewrite's {@code replace}
 * snapshot, so the job's deployment is not counted against it.
 */
final class IcebergRewritePeer {
  static final Duration TIMEOUT = Duration.ofMinutes(10);

  private IcebergRewritePeer() {}

  /** Seconds the rewrite took. */
  static double run(Map<String, String> catalogProperties, TableIdentifier copy, Table table,
      long targetFileSize) throws Exception {
    Map<String, String> props = new HashMap<>(Catalogs.forOurProcesses(catalogProperties));
    props.remove("type");
    TableLoader loader = TableLoader.fromCatalog(CatalogLoader.custom("bench", props,
        new org.apache.hadoop.conf.Configuration(false), "org.apache.iceberg.jdbc.JdbcCatalog"),
        copy);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
    env.setParallelism(1);
    TableMaintenance.forTable(env, loader)
        .rateLimit(Duration.ofMillis(500))
        .lockCheckDelay(Duration.ofMillis(500))
        .add(RewriteDataFiles.builder()
            .scheduleOnInterval(Duration.ofMillis(500))
            .targetFileSizeBytes(targetFileSize)
            .rewriteAll(true))
        .append();
    JobClient job = env.executeAsync("iceberg-rewrite-data-files");
    try {
      long running = awaitRunning(job);
      Snapshot replace = awaitReplace(table);
      return (replace.timestampMillis() - running) / 1000.0;
    } finally {
      job.cancel().get();
    }
  }

  private static long awaitRunning(JobClient job) throws Exception {
    long deadline = System.currentTimeMillis() + TIMEOUT.toMillis();
    while (job.getJobStatus().get() != JobStatus.RUNNING) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("Iceberg's rewrite job did not start in " + TIMEOUT);
      }
      Thread.sleep(20);
    }
    return System.currentTimeMillis();
  }

  private static Snapshot awaitReplace(Table table) throws InterruptedException {
    long deadline = System.currentTimeMillis() + TIMEOUT.toMillis();
    while (true) {
      table.refresh();
      Snapshot current = table.currentSnapshot();
      if ("replace".equals(current.operation())) {
        return current;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("Iceberg's rewrite committed nothing in " + TIMEOUT);
      }
      Thread.sleep(50);
    }
  }
}
