package io.verglas.bench.maintenance;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.stack.BenchCatalog;
import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.maintenance.compact.CompactionResult;
import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.plan.FileState;
import io.verglas.maintenance.plan.SnapshotFiles;
import io.verglas.maintenance.policy.MaintenancePolicy;
import java.io.IOException;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * {@code maintenance}: a format-v3 table produced by 200 small upsert commits (each a data file
 * plus deletion vectors on older files; 2 000 rows per commit, quick: 500) on a local
 * warehouse, compacted by our compactor (DVs applied, all files merged to the target size), and
 * a copy of the same table (same metadata file, other catalog entry) compacted by Iceberg's
 * Flink maintenance {@code RewriteDataFiles} with {@code rewrite-all}. Both read the same input
 * bytes (live data files and DVs); throughput is those bytes over the rewrite's time. Scan cost
 * is a full read with Iceberg's generic reader, before and after our compaction (the second of
 * two reads each, so both are warm).
 */
public final class MaintenanceBenchmark implements Benchmark {
  static final int COMMITS = 200;
  static final long TARGET_FILE_SIZE = 128L << 20;

  @Override
  public String name() {
    return "maintenance";
  }

  @Override
  public String description() {
    return "compaction of a table made by 200 small upsert commits with DVs: ours vs Iceberg's"
        + " Flink RewriteDataFiles on a copy; scan time before and after";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    int rowsPerCommit = quick ? 500 : 2_000;
    long keys = (long) COMMITS * rowsPerCommit / 4;
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .metric("commits", COMMITS).metric("rows_per_commit", rowsPerCommit).metric("keys", keys)
        .metric("storage", "local filesystem (HadoopFileIO)");
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-bench-maintenance-");
        BenchCatalog bench = BenchCatalog.create(dir.path())) {
      Catalog catalog = bench.catalog();
      Map<String, String> props = bench.properties();
      TableIdentifier name = TableIdentifier.of("bench", "upserts");
      Table table = catalog.createTable(name, UpsertTable.SCHEMA, PartitionSpec.unpartitioned(),
          Map.of(TableProperties.FORMAT_VERSION, "3"));
      UpsertTable upserts = new UpsertTable(table);
      for (int i = 0; i < COMMITS; i++) {
        upserts.commit(rowsPerCommit, keys);
      }
      TableIdentifier copyName = TableIdentifier.of("bench", "copy");
      Table copy = catalog.registerTable(copyName,
          ((BaseTable) table).operations().current().metadataFileLocation());

      SnapshotFiles before = SnapshotFiles.current(table);
      long inputBytes = inputBytes(before);
      long[] scanBefore = scan(table);
      report.metric("files_before", files(before)).metric("input_mb", round(mb(inputBytes)))
          .metric("rows", scanBefore[1]).metric("scan_ms_before", scanBefore[0]);

      MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(TARGET_FILE_SIZE)
          .deleteFileCountThreshold(1).smallFileCountThreshold(2).build();
      long start = System.nanoTime();
      CompactionResult result = new Compactor(new MaintenanceEvents(event -> {}))
          .compact(name, table, policy);
      double seconds = (System.nanoTime() - start) / 1e9;
      long[] scanAfter = scan(table);
      double ours = mb(inputBytes) / seconds;
      report.metric("compaction_s", round(seconds)).metric("compaction_mb_per_s", round(ours))
          .metric("compaction_commits", result.commits())
          .metric("files_after", files(SnapshotFiles.current(table)))
          .metric("scan_ms_after", scanAfter[0])
          .metric("rows_after", scanAfter[1])
          .ratio("scan_speedup_after_compaction", scanBefore[0], Math.max(1, scanAfter[0]));
      icebergPeer(report, props, copyName, copy, inputBytes, ours);
    }
    return report.build();
  }

  private static void icebergPeer(BenchmarkReport.Builder report, Map<String, String> props,
      TableIdentifier copyName, Table copy, long inputBytes, double ours) {
    try {
      double seconds = IcebergRewritePeer.run(props, copyName, copy, TARGET_FILE_SIZE);
      double theirs = mb(inputBytes) / seconds;
      report.peer("iceberg_rewrite_timing", "from its job RUNNING to its replace commit: includes"
              + " its table monitor's first poll and trigger scheduling (500 ms rate limit and"
              + " lock check), not the job's deployment")
          .peer("iceberg_rewrite_s", round(seconds))
          .peer("iceberg_rewrite_mb_per_s", round(theirs))
          .peer("iceberg_files_after", files(SnapshotFiles.current(copy)))
          .ratio("vs_iceberg_rewrite", ours, theirs);
    } catch (Exception | LinkageError e) {
      report.peer("iceberg_rewrite_error", e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static long inputBytes(SnapshotFiles files) {
    long bytes = 0;
    java.util.Set<String> deletes = new java.util.HashSet<>();
    for (FileState state : files.states()) {
      bytes += state.sizeBytes();
      for (var delete : files.task(state.path()).deletes()) {
        if (deletes.add(delete.location())) {
          bytes += delete.fileSizeInBytes();
        }
      }
    }
    return bytes;
  }

  /** Live data files plus the delete files applying to them. */
  private static int files(SnapshotFiles files) {
    return files.states().size()
        + files.states().stream().mapToInt(FileState::deleteFiles).sum();
  }

  /** {elapsed ms of the second full read, rows}. */
  private static long[] scan(Table table) throws IOException {
    long[] result = null;
    for (int i = 0; i < 2; i++) {
      long start = System.nanoTime();
      long rows = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record ignored : records) {
          rows++;
        }
      }
      result = new long[] {(System.nanoTime() - start) / 1_000_000, rows};
    }
    return result;
  }

  private static double mb(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }
}
