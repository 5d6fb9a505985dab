package io.verglas.bench.materialize;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.ThreadCpu;
import io.verglas.bench.stack.BenchStorage;
import io.verglas.catalog.Catalogs;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.MaterializerJob;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.table.VerglasTableProperties;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code materialize}: the same upserts (2M over 500k keys, 10 columns; quick: 200k over 50k)
 * written into a primary-key table three ways, in one run, on one machine, each a Flink job on a
 * MiniCluster with the same parallelism and a checkpoint every 2 s (RocksDB state):
 * <ol>
 *   <li>ours: WAL segments PUT to the bench S3 endpoint beforehand, then the materializer job
 *       (key index, deletion vectors) until the snapshot covering the last segment is committed;
 *   <li>Iceberg's own Flink sink in upsert mode (equality deletes, format v2) on the same
 *       catalog, fed the same rows by a generator;
 *   <li>Apache Paimon 1.3 primary-key table with deletion vectors, fed the same rows.
 * </ol>
 * All three tables live in local directories (Paimon's S3 file IO is a separate plugin jar, so
 * the Iceberg tables are put on the same kind of storage); only our input, the WAL, goes through
 * the bench S3 endpoint, as the peers' input comes from a generator inside their job. Besides
 * wall-clock rates, each writer's process CPU time is reported: the machine may be shared, and
 * CPU seconds per row are steadier than rows per second.
 * Then freshness of ours (segment PUT acknowledged → committed snapshot covering it) while
 * segments arrive at a steady rate, and read cost: a full scan with Iceberg's generic reader of
 * our table vs the equality-delete table.
 *
 * <p>Parallelism is half the CPUs (at most 4, at least 1), leaving the rest to the S3 endpoint
 * and the generators. A peer that fails is reported as {@code peers.<peer>_error} with the
 * reason, never as a number. {@code -Dverglas.bench.materialize.skip-peers=true} runs ours only
 * (for profiling).
 *
 * <p>Warm-up: before the measured comparison all three run once on 100 000
 * upserts and the results are discarded, so that none of them pays for compiling the code they
 * share ({@code -Dverglas.bench.materialize.skip-warm-up=true} leaves it out).
 */
public final class MaterializeBenchmark implements Benchmark {
  static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(2);
  static final int SEGMENT_ROWS = 20_000;
  static final int FRESHNESS_SEGMENT_ROWS = 2_000;
  static final Duration FRESHNESS_PERIOD = Duration.ofMillis(500);
  static final Duration TIMEOUT = Duration.ofMinutes(20);
  /** Upserts of the warm-up comparison that runs before the measured one. */
  static final long WARM_UP_UPSERTS =
      Long.getLong("verglas.bench.materialize.warm-up-upserts", 100_000);

  @Override
  public String name() {
    return "materialize";
  }

  @Override
  public String description() {
    return "2M upserts over 500k keys (quick: 200k over 50k) into a primary-key table: our"
        + " materializer (DVs) vs Iceberg's Flink upsert sink (equality deletes) vs Paimon (DVs)";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    long upserts = quick ? 200_000 : 2_000_000;
    int parallelism = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
    long warmUpUpserts = 0;
    if (!Boolean.getBoolean("verglas.bench.materialize.skip-warm-up")) {
      // All three once, small, results discarded: the three jobs share most of their code
      // (Flink's runtime, Parquet, Iceberg), and whichever ran first paid for compiling it
      // (measured: the JIT's threads used 20 s of CPU during the first minute of our run).
      warmUpUpserts = WARM_UP_UPSERTS;
      compare(BenchmarkReport.builder(name(), true), warmUpUpserts, parallelism, 4);
    }
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .metric("upserts", upserts)
        .metric("keys", upserts / 4)
        .metric("columns", UpsertRows.COLUMNS)
        .metric("parallelism", parallelism)
        .metric("checkpoint_interval_ms", CHECKPOINT_INTERVAL.toMillis())
        .metric("warm_up_upserts", warmUpUpserts)
        .environment("table_storage", "local directory for all three tables; our WAL input on"
            + " the bench S3 endpoint (cache node over a local directory)");
    Map<String, String> overrides = flinkOverrides();
    if (!overrides.isEmpty()) {
      report.environment("flink_overrides_of_ours", overrides);
    }
    compare(report, upserts, parallelism, quick ? 20 : 40);
    return report.build();
  }

  /** Ours, then the peers, on {@code upserts} over a quarter as many keys, into {@code report}. */
  private static void compare(BenchmarkReport.Builder report, long upserts, int parallelism,
      int freshnessSegments) throws Exception {
    long keys = upserts / 4;
    Path dir = Files.createTempDirectory("verglas-bench-materialize-");
    try (BenchStorage storage = new BenchStorage(256L << 20)) {
      Map<String, String> catalogProperties = Catalogs.sqlite(dir.resolve("catalog.db").toString(),
          dir.resolve("warehouse").toUri().toString(), Map.of());
      Catalog catalog = Catalogs.load("bench", catalogProperties);
      try {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("bench"));
        Ours ours = runOurs(storage, catalog, catalogProperties, dir, upserts, keys, parallelism,
            freshnessSegments);
        double oursRowsPerS = upserts / ours.seconds;
        report.metric("rows_per_s", Math.round(oursRowsPerS))
            .metric("elapsed_s", round(ours.seconds))
            .metric("cpu_s", round(ours.cpuSeconds))
            .metric("cpu_s_by_thread", ours.cpuByThread)
            .metric("segments", ours.segments)
            .metric("wal_bytes", ours.walBytes)
            .metric("snapshots", ours.snapshots)
            .metric("live_data_files", ours.dataFiles)
            .metric("live_delete_files", ours.deleteFiles)
            .metric("scan_ms", round(ours.scanMs))
            .metric("scan_rows", ours.scanRows)
            .metric("freshness_segments", ours.freshnessMs.length)
            .metric("freshness_p50_ms", percentile(ours.freshnessMs, 0.50))
            .metric("freshness_p99_ms", percentile(ours.freshnessMs, 0.99))
            .metric("freshness_max_ms", percentile(ours.freshnessMs, 1.0));

        if (!Boolean.getBoolean("verglas.bench.materialize.skip-peers")) {
          report.peer("input", "peers: the same upserts generated inside the job;"
              + " ours: read from the pre-written WAL segments on the bench S3 endpoint");
          icebergPeer(report, catalog, catalogProperties, dir, upserts, keys, parallelism, ours);
          paimonPeer(report, dir, upserts, keys, parallelism, ours);
        }
      } finally {
        if (catalog instanceof Closeable closeable) {
          closeable.close();
        }
      }
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void icebergPeer(BenchmarkReport.Builder report, Catalog catalog,
      Map<String, String> catalogProperties, Path dir, long upserts, long keys, int parallelism,
      Ours ours) {
    try {
      Peer iceberg = IcebergUpsertPeer.run(catalog, catalogProperties, upserts, keys, parallelism,
          configuration(dir.resolve("iceberg-checkpoints")));
      report.peer("iceberg_upsert_rows_per_s", Math.round(upserts / iceberg.seconds()))
          .peer("iceberg_upsert_elapsed_s", round(iceberg.seconds()))
          .peer("iceberg_upsert_cpu_s", round(iceberg.cpuSeconds()))
          .peer("iceberg_upsert_scan_ms", round(iceberg.scanMs()))
          .peer("iceberg_upsert_scan_rows", iceberg.scanRows())
          .peer("iceberg_upsert_live_data_files", iceberg.dataFiles())
          .peer("iceberg_upsert_live_delete_files", iceberg.deleteFiles())
          .ratio("vs_iceberg_upsert_throughput", upserts / ours.seconds,
              upserts / iceberg.seconds())
          .ratio("scan_speedup_vs_equality_deletes", iceberg.scanMs(), ours.scanMs)
          .ratio("cpu_efficiency_vs_iceberg_upsert", iceberg.cpuSeconds(), ours.cpuSeconds);
    } catch (Exception | LinkageError e) {
      report.peer("iceberg_upsert_error", describe(e));
    }
  }

  private static void paimonPeer(BenchmarkReport.Builder report, Path dir, long upserts,
      long keys, int parallelism, Ours ours) {
    try {
      Peer paimon = PaimonPeer.run(dir.resolve("paimon"), upserts, keys, parallelism,
          configuration(dir.resolve("paimon-checkpoints")));
      report.peer("paimon_rows_per_s", Math.round(upserts / paimon.seconds()))
          .peer("paimon_elapsed_s", round(paimon.seconds()))
          .peer("paimon_cpu_s", round(paimon.cpuSeconds()))
          .peer("paimon_scan_rows", paimon.scanRows())
          .peer("paimon_scan_ms_own_reader", round(paimon.scanMs()))
          .ratio("vs_paimon_throughput", upserts / ours.seconds, upserts / paimon.seconds())
          .ratio("cpu_efficiency_vs_paimon", paimon.cpuSeconds(), ours.cpuSeconds);
    } catch (Exception | LinkageError e) {
      report.peer("paimon_error", describe(e));
    }
  }

  /** Flink settings shared by all three jobs (ours brings the same through MaterializerJob). */
  static Configuration configuration(Path checkpoints) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    return conf;
  }

  /**
   * Every {@code -Dverglas.bench.flink.<key>=<value>}, as Flink key → value: settings to try on
   * our job without a rebuild (for profiling; the report lists them).
   */
  static Map<String, String> flinkOverrides() {
    String prefix = "verglas.bench.flink.";
    Map<String, String> overrides = new TreeMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(prefix)) {
        overrides.put(name.substring(prefix.length()), System.getProperty(name));
      }
    }
    return overrides;
  }

  /** {@code conf} with the {@link #flinkOverrides} set on it. */
  static Configuration withFlinkOverrides(Configuration conf) {
    flinkOverrides().forEach(conf::setString);
    return conf;
  }

  private static Ours runOurs(BenchStorage storage, Catalog catalog,
      Map<String, String> catalogProperties, Path dir, long upserts, long keys, int parallelism,
      int freshnessSegments) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, VerglasTableProperties.FORMAT_VERSION_DEFAULT);
    props.put(VerglasTableProperties.MANAGED, "true");
    Table table = catalog.createTable(TableIdentifier.of("bench", "materialized"),
        UpsertRows.SCHEMA, PartitionSpec.unpartitioned(), props);
    Ours ours = new Ours();
    int streams = Integer.getInteger("verglas.bench.materialize.streams", parallelism);
    try (S3Client s3 = storage.endpoint().newClient();
        BenchWal wal = new BenchWal(s3, storage.endpoint().bucket(), table, streams, keys)) {
      // Pre-write the whole input: segments of SEGMENT_ROWS consecutive upserts, dealt
      // round-robin to the streams (as several ingest nodes would write them).
      Map<String, BenchWal.Segment> last = new LinkedHashMap<>();
      int index = 0;
      for (long first = 0; first < upserts; first += SEGMENT_ROWS, index++) {
        BenchWal.Segment segment = wal.segment(index % streams, first,
            (int) Math.min(SEGMENT_ROWS, upserts - first));
        wal.put(segment);
        last.put(segment.streamId(), segment);
        ours.walBytes += segment.bytes().length;
      }
      ours.segments = index;

      MaterializerConfig config = MaterializerConfig.builder()
          .catalog("bench", catalogProperties)
          .objectStore(storage.endpoint())
          .checkpointInterval(CHECKPOINT_INTERVAL)
          .checkpointDir(dir.resolve("materializer-checkpoints").toUri().toString())
          .parallelism(parallelism)
          .build();
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
          withFlinkOverrides(MaterializerJob.configuration(config)));
      env.setParallelism(parallelism);
      MaterializerJob.build(env, config);
      long start = System.currentTimeMillis();
      long cpuStart = processCpuNanos();
      ThreadCpu threadCpu = ThreadCpu.start();
      JobClient job = env.executeAsync(MaterializerJob.JOB_NAME);
      try {
        Snapshot done = awaitCovered(table, new ArrayList<>(last.values()));
        ours.seconds = (done.timestampMillis() - start) / 1000.0;
        ours.cpuSeconds = (processCpuNanos() - cpuStart) / 1e9;
        ours.cpuByThread = threadCpu.topGroups(10);
        ours.snapshots = countSnapshots(table);
        int[] files = liveFiles(table);
        ours.dataFiles = files[0];
        ours.deleteFiles = files[1];

        // Read cost, while the job idles.
        long[] scan = scan(table);
        ours.scanMs = scan[0] / 1e6;
        ours.scanRows = scan[1];

        // Freshness: small segments at a steady rate on one stream.
        List<BenchWal.Segment> fresh = new ArrayList<>();
        long[] acked = new long[freshnessSegments];
        long next = System.nanoTime();
        for (int i = 0; i < freshnessSegments; i++) {
          BenchWal.Segment segment = wal.segment(0, upserts + (long) i * FRESHNESS_SEGMENT_ROWS,
              FRESHNESS_SEGMENT_ROWS);
          long wait = next - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          acked[i] = wal.put(segment);
          fresh.add(segment);
          next += FRESHNESS_PERIOD.toNanos();
        }
        awaitCovered(table, List.of(fresh.get(fresh.size() - 1)));
        List<Snapshot> snapshots = snapshotsInOrder(table);
        ours.freshnessMs = new double[freshnessSegments];
        for (int i = 0; i < freshnessSegments; i++) {
          Snapshot covering = firstCovering(snapshots, fresh.get(i));
          ours.freshnessMs[i] = covering.timestampMillis() - acked[i];
        }
        System.err.printf("materialize: freshness per segment (ms): %s%n",
            Arrays.toString(ours.freshnessMs));

      } finally {
        job.cancel().get();
      }
    }
    return ours;
  }

  /** CPU time of this process so far (all threads: the job, the S3 endpoint, this driver). */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean hotspot) {
      return hotspot.getProcessCpuTime();
    }
    throw new UnsupportedOperationException("Cannot measure process CPU time on this JVM ("
        + os.getClass().getName() + ")");
  }

  private static Snapshot awaitCovered(Table table, List<BenchWal.Segment> segments)
      throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      table.refresh();
      Snapshot current = table.currentSnapshot();
      if (current != null && coversAll(current, segments)) {
        // The first snapshot that covers them all (the current one may be later).
        Snapshot first = current;
        for (Snapshot snapshot : snapshotsInOrder(table)) {
          if (coversAll(snapshot, segments)) {
            first = snapshot;
            break;
          }
        }
        return first;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("Timed out after " + TIMEOUT + " waiting for " + segments.size()
        + " WAL segments to be committed to " + table.name());
  }

  private static boolean coversAll(Snapshot snapshot, List<BenchWal.Segment> segments) {
    Map<String, WalMark> marks = WalSummary.parse(snapshot.summary());
    for (BenchWal.Segment segment : segments) {
      WalMark mark = marks.get(segment.streamId());
      if (mark == null || !mark.coversSegment(segment.sequence(), segment.rows())) {
        return false;
      }
    }
    return true;
  }

  private static Snapshot firstCovering(List<Snapshot> snapshots, BenchWal.Segment segment) {
    for (Snapshot snapshot : snapshots) {
      if (coversAll(snapshot, List.of(segment))) {
        return snapshot;
      }
    }
    throw new IllegalStateException("No snapshot covers " + segment.key());
  }

  private static List<Snapshot> snapshotsInOrder(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
    return snapshots;
  }

  /** {live data files, distinct live delete files} of the current snapshot. */
  static int[] liveFiles(Table table) throws IOException {
    table.refresh();
    int data = 0;
    java.util.Set<String> deletes = new java.util.HashSet<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        data++;
        task.deletes().forEach(d -> deletes.add(d.location() + "#" + d.contentOffset()));
      }
    }
    return new int[] {data, deletes.size()};
  }

  private static int countSnapshots(Table table) {
    return snapshotsInOrder(table).size();
  }

  /** A full scan with Iceberg's generic reader, best of two: {nanos, rows}. */
  static long[] scan(Table table) throws IOException {
    table.refresh();
    long best = Long.MAX_VALUE;
    long rows = 0;
    for (int round = 0; round < 2; round++) {
      long start = System.nanoTime();
      long count = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record ignored : records) {
          count++;
        }
      }
      best = Math.min(best, System.nanoTime() - start);
      rows = count;
    }
    return new long[] {best, rows};
  }

  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return -1;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, index)];
  }

  static double round(double value) {
    return Math.round(value * 100.0) / 100.0;
  }

  private static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = e.getClass().getSimpleName() + ": " + e.getMessage();
    if (root != e) {
      text += " (root cause " + root.getClass().getName() + ": " + root.getMessage() + ")";
    }
    return text.length() > 600 ? text.substring(0, 600) + "..." : text;
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What our run measured. */
  static final class Ours {
    double seconds;
    double cpuSeconds;
    Map<String, Double> cpuByThread = Map.of();
    int segments;
    long walBytes;
    int snapshots;
    int dataFiles;
    int deleteFiles;
    double scanMs;
    long scanRows;
    double[] freshnessMs = new double[0];
  }

  /** What a peer run measured (scan figures only where the peer is an Iceberg table). */
  record Peer(double seconds, double cpuSeconds, double scanMs, long scanRows, int dataFiles,
      int deleteFiles) {}
}
