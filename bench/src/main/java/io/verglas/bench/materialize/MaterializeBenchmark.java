package io.verglas.bench.materialize;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.materializer.delta.IntervalStaging;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * {@code materialize}: the same upserts (2M over 500k keys, 10 columns; quick: 200k over 50k)
 * written into a primary-key table three ways, in one run, on one machine, each a Flink job on a
 * MiniCluster with the same parallelism and a checkpoint every 2 s (RocksDB state):
 * <ol>
 *   <li>ours ({@link OursRun}): WAL segments PUT to the bench S3 endpoint beforehand, then the
 *       materializer job (key index, deletion vectors) until the snapshot covering the last
 *       segment is committed;
 *   <li>Iceberg's own Flink sink in upsert mode (equality deletes, format v2) on the same kind of
 *       catalog, fed the same rows by a generator;
 *   <li>Apache Paimon 1.3 primary-key table with deletion vectors, fed the same rows.
 * </ol>
 * All three tables live in local directories (Paimon's S3 file IO is a separate plugin jar, so
 * the Iceberg tables are put on the same kind of storage); only our input, the WAL, goes through
 * the bench S3 endpoint (in our process), as the peers' input comes from a generator inside
 * their job. Besides wall-clock rates, each writer's process CPU time is reported: the machine
 * may be shared, and CPU seconds per row are steadier than rows per second.
 * Then freshness of ours (segment PUT acknowledged → committed snapshot covering it) while
 * segments arrive at a steady rate, and read cost: a full scan with Iceberg's generic reader of
 * our table vs the equality-delete table.
 *
 * <p>Processes: each writer runs in a JVM of its own ({@link WriterProcess}), one after the
 * other, with this JVM's options, as each would be deployed: in one shared JVM every thread of
 * ours cost 30-40% more CPU than when ours ran alone, the peers' use of the same Flink and
 * Parquet classes leaving ours with recompiled, more polymorphic code (and the other way
 * round). So {@code metrics.peak_rss_mb} is our process's peak and each peer's is reported
 * beside its speed.
 *
 * <p>Commit on checkpoints, all three: ours, a streaming job, commits rows at the first
 * checkpoint after it wrote them; the peers' input is a generator that idles once it has
 * emitted the upserts ({@link EndlessSequence}), so their jobs run on too and each is measured
 * until the commit of the first checkpoint that covers its input ({@link PeerJob}). Bounded
 * peer jobs, as earlier builds ran them, commit the moment the input ends, not waiting for a
 * checkpoint, which no sink on a stream that runs on can do (measured: the Iceberg sink's window
 * ended 0.16 s after its input, ours 1.55 s after). Flink starts the periodic checkpoints at a
 * random delay within the interval, so every window includes 0-2 s of waiting for the covering
 * checkpoint, a different share in every run: each writer is measured {@value #MEASURED_RUNS}
 * times ({@code -Dverglas.bench.materialize.runs=N}), the run of median duration is reported in
 * full, the others' rates beside it ({@code rows_per_s_runs}), and the ratios are of the
 * medians. {@code phases_s} splits each reported window into the start of the job, the time
 * its input thread was busy, and the rest until the covering commit.
 *
 * <p>Parallelism is half the CPUs (at most 4, at least 1), leaving the rest to the S3 endpoint
 * and the generators. A peer that fails is reported as {@code peers.<peer>_error} with the
 * reason, never as a number. {@code -Dverglas.bench.materialize.skip-peers=true} runs ours only
 * (for profiling). {@code -Dverglas.bench.materialize.keys=N} runs another workload (all three
 * writers; 50000: each key changes several times per checkpoint), and
 * {@code -Dverglas.bench.materialize.interval-staging=auto|always|never} sets our writer's
 * interval staging; the report names both.
 *
 * <p>Warm-up: in its process each writer first runs three times on the upserts it is measured
 * on (each into a new table), results discarded, then the heap is collected (keeping its size,
 * see {@link WriterProcess#JVM_OPTIONS}), so that each is measured as the long-running job it
 * is, not while the JIT compiles it. Each writer's JIT
 * compile time during its measured run is reported ({@code jit_compile_s}): on 2 cores, after a
 * warm-up of 100 000 upserts the compilers still spent 24 s compiling during our 30 s run
 * (Paimon's: 24 s, Iceberg's: 8 s), code reached once per checkpoint or per file (commits,
 * Parquet footers, manifests) getting hot only slowly; after a warm-up of the measured size,
 * 7-15 s (Paimon 3-8 s, Iceberg 2.5-6 s); after one run on three times that (over three times
 * the keys: another regime, ours then read its key index from RocksDB), ours 4.6-7.4 s; after
 * three runs of the measured size, ours 3-4.3 s (Paimon 2-2.9 s, Iceberg 3-3.3 s).
 * {@code -Dverglas.bench.materialize.warm-up-upserts=N} sets another total (done in runs of the
 * measured size), {@code -Dverglas.bench.materialize.skip-warm-up=true} leaves it out.
 */
public final class MaterializeBenchmark implements Benchmark {
  static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(2);
  /** How long one writer's process may take, its warm-up included. */
  static final Duration TIMEOUT = Duration.ofMinutes(30);
  /** The warm-up's runs of the measured size. */
  static final int WARM_UP_FACTOR = 3;
  /**
   * How many times each writer is measured after its warm-up: one run's rate varied by 15-30%
   * from run to run on the same build (the checkpoint timer's phase against the input's end,
   * collections, compilations).
   */
  static final int MEASURED_RUNS = 3;
  /**
   * How often each writer's threads are sampled for {@code cpu_s_by_thread}: the peers' task
   * threads end with their bounded jobs, before the run's CPU is read, and count up to their
   * last sample.
   */
  static final Duration THREAD_CPU_SAMPLING = Duration.ofMillis(100);

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
    int freshnessSegments = quick ? 20 : 40;
    long warmUpUpserts = Boolean.getBoolean("verglas.bench.materialize.skip-warm-up")
        ? 0 : Long.getLong("verglas.bench.materialize.warm-up-upserts", WARM_UP_FACTOR * upserts);
    int runs = measuredRuns();
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .metric("upserts", upserts)
        .metric("keys", keys(upserts))
        .metric("columns", UpsertRows.COLUMNS)
        .metric("parallelism", parallelism)
        .metric("checkpoint_interval_ms", CHECKPOINT_INTERVAL.toMillis())
        .metric("warm_up_upserts", warmUpUpserts)
        .metric("measured_runs", runs)
        .environment("table_storage", "local directory for all three tables; our WAL input on"
            + " the bench S3 endpoint (cache node over a local directory, in our process)")
        .environment("processes", "one JVM per writer, one after the other, with the options"
            + " of the benchmark's JVM and " + String.join(" ", WriterProcess.JVM_OPTIONS)
            + " (the heap its warm-up grew is kept for the measured runs); of each writer's "
            + runs + " measured runs (the heap collected before each), the median is reported"
            + " and the others' rates listed");
    intervalStaging().ifPresent(staging ->
        report.environment("interval_staging_of_ours", staging.name().toLowerCase(Locale.ROOT)));
    Map<String, String> overrides = flinkOverrides();
    if (!overrides.isEmpty()) {
      report.environment("flink_overrides_of_ours", overrides);
    }
    WriterOutcome ours = WriterProcess.launch(Writer.OURS, upserts, parallelism,
        freshnessSegments, warmUpUpserts, runs);
    if (ours.failed()) {
      throw new IllegalStateException("Our materializer's run failed: " + ours.error());
    }
    oursMetrics(report, upserts, ours);
    if (!Boolean.getBoolean("verglas.bench.materialize.skip-peers")) {
      report.peer("input", "peers: the same upserts generated inside the job;"
          + " ours: read from the pre-written WAL segments on the bench S3 endpoint");
      WriterOutcome iceberg = WriterProcess.launch(Writer.ICEBERG_UPSERT, upserts, parallelism,
          freshnessSegments, warmUpUpserts, runs);
      icebergPeer(report, upserts, ours.ours(), iceberg);
      WriterOutcome paimon = WriterProcess.launch(Writer.PAIMON, upserts, parallelism,
          freshnessSegments, warmUpUpserts, runs);
      paimonPeer(report, upserts, ours.ours(), paimon);
    }
    return report.build();
  }

  private static void oursMetrics(BenchmarkReport.Builder report, long upserts,
      WriterOutcome outcome) {
    OursRun.Ours ours = outcome.ours();
    windowFigures(report::metric, "", upserts, outcome);
    report.metric("segments", ours.segments())
        .metric("wal_bytes", ours.walBytes())
        .metric("snapshots", ours.snapshots())
        .metric("live_data_files", ours.dataFiles())
        .metric("live_delete_files", ours.deleteFiles())
        .metric("scan_ms", round(ours.scanMs()))
        .metric("scan_rows", ours.scanRows())
        .metric("checkpoint_mb", round(ours.checkpointBytes() / 1048576.0))
        .metric("freshness_segments", ours.freshnessMs().length)
        .metric("freshness_p50_ms", percentile(ours.freshnessMs(), 0.50))
        .metric("freshness_p99_ms", percentile(ours.freshnessMs(), 0.99))
        .metric("freshness_max_ms", percentile(ours.freshnessMs(), 1.0))
        .metric("heap_used_mb", outcome.memory().heapUsedMb())
        .metric("direct_memory_mb", outcome.memory().directMemoryMb());
  }

  private static void icebergPeer(BenchmarkReport.Builder report, long upserts, OursRun.Ours ours,
      WriterOutcome outcome) {
    if (outcome.failed()) {
      report.peer("iceberg_upsert_error", outcome.error());
      return;
    }
    Peer iceberg = outcome.peer();
    MeasuredWindow.Figures window = iceberg.window();
    windowFigures(report::peer, "iceberg_upsert_", upserts, outcome);
    report.peer("iceberg_upsert_scan_ms", round(iceberg.scanMs()))
        .peer("iceberg_upsert_scan_rows", iceberg.scanRows())
        .peer("iceberg_upsert_live_data_files", iceberg.dataFiles())
        .peer("iceberg_upsert_live_delete_files", iceberg.deleteFiles())
        .ratio("vs_iceberg_upsert_throughput", upserts / ours.window().seconds(),
            upserts / window.seconds())
        .ratio("scan_speedup_vs_equality_deletes", iceberg.scanMs(), ours.scanMs())
        .ratio("cpu_efficiency_vs_iceberg_upsert", window.cpuSeconds(),
            ours.window().cpuSeconds());
  }

  private static void paimonPeer(BenchmarkReport.Builder report, long upserts, OursRun.Ours ours,
      WriterOutcome outcome) {
    if (outcome.failed()) {
      report.peer("paimon_error", outcome.error());
      return;
    }
    Peer paimon = outcome.peer();
    MeasuredWindow.Figures window = paimon.window();
    windowFigures(report::peer, "paimon_", upserts, outcome);
    report.peer("paimon_scan_rows", paimon.scanRows())
        .peer("paimon_scan_ms_own_reader", round(paimon.scanMs()))
        .ratio("vs_paimon_throughput", upserts / ours.window().seconds(),
            upserts / window.seconds())
        .ratio("cpu_efficiency_vs_paimon", window.cpuSeconds(), ours.window().cpuSeconds());
  }

  /**
   * A writer's rates, window and memory figures, under names beginning with {@code prefix}
   * (the same for ours and the peers).
   */
  private static void windowFigures(BiConsumer<String, Object> report, String prefix,
      long upserts, WriterOutcome outcome) {
    MeasuredWindow.Figures window = outcome.window();
    report.accept(prefix + "rows_per_s", Math.round(upserts / window.seconds()));
    report.accept(prefix + "rows_per_s_runs", ratesOf(upserts, outcome));
    report.accept(prefix + "elapsed_s", round(window.seconds()));
    report.accept(prefix + "phases_s", window.phases());
    report.accept(prefix + "cpu_s", round(window.cpuSeconds()));
    report.accept(prefix + "jit_compile_s", round(window.jitSeconds()));
    report.accept(prefix + "cpu_s_by_thread", window.cpuByThread());
    report.accept(prefix + "peak_rss_mb", outcome.memory().peakRssMb());
  }

  /** Each measured run's rows per second, in the order they ran. */
  private static List<Long> ratesOf(long upserts, WriterOutcome outcome) {
    return outcome.runSeconds().stream().map(seconds -> Math.round(upserts / seconds)).toList();
  }

  /**
   * How many times each writer is measured: {@value #MEASURED_RUNS}, or
   * {@code -Dverglas.bench.materialize.runs}.
   */
  static int measuredRuns() {
    int runs = Integer.getInteger("verglas.bench.materialize.runs", MEASURED_RUNS);
    if (runs < 1) {
      throw new IllegalArgumentException("verglas.bench.materialize.runs must be at least 1, not "
          + runs);
    }
    return runs;
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

  /**
   * The keys the upserts go to: a quarter as many as upserts, as the issue sets, unless
   * {@code -Dverglas.bench.materialize.keys} asks for another workload (fewer keys: each key
   * changes several times per checkpoint; the report names the count).
   */
  static long keys(long upserts) {
    return Long.getLong("verglas.bench.materialize.keys", upserts / 4);
  }

  /**
   * Our materializer's {@code writer.interval-staging} when
   * {@code -Dverglas.bench.materialize.interval-staging} sets it (auto, always, never).
   */
  static Optional<IntervalStaging> intervalStaging() {
    return Optional.ofNullable(System.getProperty("verglas.bench.materialize.interval-staging"))
        .map(IntervalStaging::parse);
  }

  /** {@code conf} with the {@link #flinkOverrides} set on it. */
  static Configuration withFlinkOverrides(Configuration conf) {
    flinkOverrides().forEach(conf::setString);
    return conf;
  }

  /** {live data files, distinct live delete files} of the current snapshot. */
  static int[] liveFiles(Table table) throws IOException {
    table.refresh();
    return liveFiles(table, table.currentSnapshot().snapshotId());
  }

  /** {live data files, distinct live delete files} of a snapshot. */
  static int[] liveFiles(Table table, long snapshotId) throws IOException {
    int data = 0;
    java.util.Set<String> deletes = new java.util.HashSet<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        data++;
        task.deletes().forEach(d -> deletes.add(d.location() + "#" + d.contentOffset()));
      }
    }
    return new int[] {data, deletes.size()};
  }

  /** A full scan of the current snapshot with Iceberg's generic reader, best of two. */
  static long[] scan(Table table) throws IOException {
    table.refresh();
    return scan(table, table.currentSnapshot().snapshotId());
  }

  /** A full scan of a snapshot with Iceberg's generic reader, best of two: {nanos, rows}. */
  static long[] scan(Table table, long snapshotId) throws IOException {
    long best = Long.MAX_VALUE;
    long rows = 0;
    for (int round = 0; round < 2; round++) {
      long start = System.nanoTime();
      long count = 0;
      try (CloseableIterable<Record> records =
          IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
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

  static String describe(Throwable e) {
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

  /** What a peer run measured (scan figures only where the peer is an Iceberg table). */
  record Peer(MeasuredWindow.Figures window, double scanMs, long scanRows, int dataFiles,
      int deleteFiles) {}
}
