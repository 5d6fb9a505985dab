package io.verglas.bench.materialize;

import io.verglas.bench.stack.BenchCatalog;
import io.verglas.bench.stack.BenchStorage;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.MaterializerJob;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import io.verglas.table.VerglasTableProperties;
import java.io.IOException;
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
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Our side of the materialize benchmark: the whole input PUT as WAL segments to the bench S3
 * endpoint beforehand, then the materializer job until the snapshot covering the last segment
 * is committed; then the read cost (a full scan with Iceberg's generic reader) and freshness
 * (segment PUT acknowledged → committed snapshot covering it) while small segments arrive at a
 * steady rate.
 */
final class OursRun {
  static final int SEGMENT_ROWS = 20_000;
  static final int FRESHNESS_SEGMENT_ROWS = 2_000;
  static final Duration FRESHNESS_PERIOD = Duration.ofMillis(500);
  /** How long a commit covering given segments may take to appear. */
  static final Duration COMMIT_TIMEOUT = Duration.ofMinutes(20);
  /**
   * How often the table is polled for the covering snapshot. Times are read from the snapshots'
   * commit timestamps, not from when a poll sees them, so a slower poll costs no accuracy, and
   * each poll (a catalog query and, after a commit, a metadata file parsed) runs in the process
   * whose CPU is measured.
   */
  static final Duration POLL_INTERVAL = Duration.ofMillis(500);

  private OursRun() {}

  /**
   * Runs our materializer on {@code upserts} over {@link MaterializeBenchmark#keys} keys, all
   * kept in {@code dir}.
   */
  static Ours run(Path dir, long upserts, int parallelism, int freshnessSegments)
      throws Exception {
    try (BenchStorage storage = new BenchStorage(256L << 20);
        BenchCatalog catalog = BenchCatalog.create(dir)) {
      return run(storage, catalog, dir, upserts, MaterializeBenchmark.keys(upserts), parallelism,
          freshnessSegments);
    }
  }

  private static Ours run(BenchStorage storage, BenchCatalog benchCatalog, Path dir,
      long upserts, long keys, int parallelism, int freshnessSegments) throws Exception {
    Catalog catalog = benchCatalog.catalog();
    Map<String, String> catalogProperties = benchCatalog.properties();
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, VerglasTableProperties.FORMAT_VERSION_DEFAULT);
    props.put(VerglasTableProperties.MANAGED, "true");
    Table table = catalog.createTable(TableIdentifier.of("bench", "materialized"),
        UpsertRows.SCHEMA, PartitionSpec.unpartitioned(), props);
    int streams = Integer.getInteger("verglas.bench.materialize.streams", parallelism);
    try (S3Client s3 = storage.endpoint().newClient();
        BenchWal wal = new BenchWal(s3, storage.endpoint().bucket(), table, streams, keys)) {
      Input input = preWrite(wal, upserts, streams);

      MaterializerConfig.Builder builder = MaterializerConfig.builder()
          .catalog("bench", catalogProperties)
          .objectStore(storage.endpoint())
          .checkpointInterval(MaterializeBenchmark.CHECKPOINT_INTERVAL)
          .checkpointDir(dir.resolve("materializer-checkpoints").toUri().toString())
          .parallelism(parallelism);
      MaterializeBenchmark.intervalStaging().ifPresent(builder::intervalStaging);
      MaterializerConfig config = builder.build();
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
          MaterializeBenchmark.withFlinkOverrides(MaterializerJob.configuration(config)));
      env.setParallelism(parallelism);
      MaterializerJob.build(env, config);
      MeasuredWindow window = MeasuredWindow.open();
      JobClient job = env.executeAsync(MaterializerJob.JOB_NAME);
      Snapshot done;
      MeasuredWindow.Figures figures;
      double[] freshnessMs;
      try {
        done = awaitCovered(table, input.lastPerStream());
        figures = window.close((done.timestampMillis() - window.startMillis()) / 1000.0,
            Phases.OURS_INPUT);
        freshnessMs = freshness(table, wal, upserts, freshnessSegments);
      } finally {
        window.close();
        job.cancel().get();
      }
      // The last checkpoint stays on cancel: its files are the state the job would restore,
      // nearly all of it the key index (incremental checkpoints delete unreferenced files).
      long checkpointBytes = directoryBytes(dir.resolve("materializer-checkpoints"));
      // Read cost of the snapshot that covered the input, with no job running, as the peers'.
      long[] scan = MaterializeBenchmark.scan(table, done.snapshotId());
      int[] files = MaterializeBenchmark.liveFiles(table, done.snapshotId());
      return new Ours(figures, input.segments(),
          input.walBytes(), countSnapshots(table, done), files[0], files[1], scan[0] / 1e6,
          scan[1], freshnessMs, checkpointBytes);
    }
  }

  /**
   * Pre-writes the whole input: segments of SEGMENT_ROWS consecutive upserts, dealt round-robin
   * to the streams (as several ingest nodes would write them).
   */
  private static Input preWrite(BenchWal wal, long upserts, int streams) {
    Map<String, BenchWal.Segment> last = new LinkedHashMap<>();
    long walBytes = 0;
    int index = 0;
    for (long first = 0; first < upserts; first += SEGMENT_ROWS, index++) {
      BenchWal.Segment segment = wal.segment(index % streams, first,
          (int) Math.min(SEGMENT_ROWS, upserts - first));
      wal.put(segment);
      last.put(segment.streamId(), segment);
      walBytes += segment.bytes().length;
    }
    return new Input(index, walBytes, new ArrayList<>(last.values()));
  }

  /**
   * Freshness: small segments at a steady rate on one stream, after the input; per segment, its
   * PUT's acknowledgement → the commit of the first snapshot covering it, in ms.
   */
  private static double[] freshness(Table table, BenchWal wal, long upserts, int count)
      throws InterruptedException {
    List<BenchWal.Segment> fresh = new ArrayList<>();
    long[] acked = new long[count];
    long next = System.nanoTime();
    for (int i = 0; i < count; i++) {
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
    List<Snapshot> committed = snapshotsInOrder(table);
    double[] freshnessMs = new double[count];
    for (int i = 0; i < count; i++) {
      freshnessMs[i] = firstCovering(committed, List.of(fresh.get(i))).timestampMillis()
          - acked[i];
    }
    System.err.printf("materialize: freshness per segment (ms): %s%n",
        Arrays.toString(freshnessMs));
    return freshnessMs;
  }

  private static Snapshot awaitCovered(Table table, List<BenchWal.Segment> segments)
      throws InterruptedException {
    long deadline = System.nanoTime() + COMMIT_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      table.refresh();
      Snapshot current = table.currentSnapshot();
      if (current != null && coversAll(current, segments)) {
        // The first snapshot that covers them all (the current one may be later).
        return firstCovering(snapshotsInOrder(table), segments);
      }
      Thread.sleep(POLL_INTERVAL.toMillis());
    }
    throw new IllegalStateException("Timed out after " + COMMIT_TIMEOUT + " waiting for "
        + segments.size() + " WAL segments to be committed to " + table.name());
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

  /** The first of {@code snapshots} (in commit order) that covers all {@code segments}. */
  private static Snapshot firstCovering(List<Snapshot> snapshots,
      List<BenchWal.Segment> segments) {
    for (Snapshot snapshot : snapshots) {
      if (coversAll(snapshot, segments)) {
        return snapshot;
      }
    }
    throw new IllegalStateException("No snapshot covers "
        + segments.stream().map(BenchWal.Segment::key).toList());
  }

  private static List<Snapshot> snapshotsInOrder(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
    return snapshots;
  }

  private static long directoryBytes(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
    }
  }

  /** Snapshots up to and including {@code last}. */
  private static int countSnapshots(Table table, Snapshot last) {
    return (int) snapshotsInOrder(table).stream()
        .filter(s -> s.sequenceNumber() <= last.sequenceNumber()).count();
  }

  /** The pre-written input: how many segments, their bytes, the last segment of each stream. */
  private record Input(int segments, long walBytes, List<BenchWal.Segment> lastPerStream) {}

  /** What our run measured. */
  record Ours(MeasuredWindow.Figures window, int segments, long walBytes, int snapshots,
      int dataFiles, int deleteFiles, double scanMs, long scanRows, double[] freshnessMs,
      long checkpointBytes) {}
}
