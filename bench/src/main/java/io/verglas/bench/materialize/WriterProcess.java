package io.verglas.bench.materialize;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.bench.ChildJvm;
import io.verglas.bench.ProcessMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One writer of the materialize benchmark in a JVM of its own: warm-up runs whose results are
 * discarded, then the measured runs, of which the median is reported; the outcome goes to a
 * JSON file the benchmark reads.
 */
public final class WriterProcess {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * The writer JVM keeps the heap its warm-up grew: the collection between warm-up and measured
   * run ({@link #warmUp}) would otherwise shrink it back to the initial size, and the measured
   * run would spend its first seconds growing it again (measured: 20-odd young collections and
   * several concurrent cycles in our 7 s window, 1.3-1.4 s of GC CPU, against 0.2-0.7 s with the
   * heap kept). A task manager never shrinks so: Flink starts it with {@code -Xms} = {@code -Xmx}.
   * The same for all three writers.
   */
  static final List<String> JVM_OPTIONS = List.of("-XX:MaxHeapFreeRatio=100");

  private WriterProcess() {}

  /**
   * Runs {@code writer} in a child JVM and returns what it measured, or why it failed (also when
   * the process died without a word).
   */
  static WriterOutcome launch(Writer writer, long upserts, int parallelism, int freshnessSegments,
      long warmUpUpserts, int measuredRuns) throws Exception {
    Path out = Files.createTempFile("verglas-bench-" + writer.name().toLowerCase() + "-", ".json");
    try {
      ChildJvm.run(WriterProcess.class, JVM_OPTIONS, List.of(writer.name(), Long.toString(upserts),
          Integer.toString(parallelism), Integer.toString(freshnessSegments),
          Long.toString(warmUpUpserts), Integer.toString(measuredRuns), out.toString()),
          MaterializeBenchmark.TIMEOUT);
      return JSON.readValue(out.toFile(), WriterOutcome.class);
    } catch (IllegalStateException e) {
      // The process died or hung (killed by the OS, out of memory): no outcome was written.
      return WriterOutcome.failed(e.getMessage());
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /**
   * Arguments: writer, upserts, parallelism, freshness segments, warm-up upserts (0: none),
   * measured runs, outcome file. Exits 0 once the outcome (a failure included) is written.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      throw new IllegalArgumentException("Usage: WriterProcess WRITER UPSERTS PARALLELISM "
          + "FRESHNESS_SEGMENTS WARM_UP_UPSERTS MEASURED_RUNS OUTCOME_FILE");
    }
    Writer writer = Writer.valueOf(args[0]);
    long upserts = Long.parseLong(args[1]);
    int parallelism = Integer.parseInt(args[2]);
    int freshnessSegments = Integer.parseInt(args[3]);
    long warmUpUpserts = Long.parseLong(args[4]);
    int measuredRuns = Integer.parseInt(args[5]);
    WriterOutcome outcome;
    try {
      if (warmUpUpserts > 0) {
        warmUp(writer, upserts, parallelism, warmUpUpserts);
      }
      List<WriterOutcome> runs = new ArrayList<>();
      for (int run = 0; run < measuredRuns; run++) {
        collectHeap();
        runs.add(writer.runInTemporaryDirectory(upserts, parallelism, freshnessSegments));
      }
      outcome = WriterOutcome.median(runs);
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      outcome = WriterOutcome.failed(MaterializeBenchmark.describe(e));
    }
    JSON.writeValue(Path.of(args[6]).toFile(), outcome.withMemory(ProcessMemory.Usage.now()));
    // Flink's MiniCluster and the S3 endpoint may leave non-daemon threads behind.
    System.exit(0);
  }

  /**
   * Runs the writer on {@code total} upserts, in runs of the measured size (each into a new table,
   * a quarter as many keys as upserts), results discarded. Why runs of the measured size: the
   * code is then compiled for the paths the measured run takes. One long run over more keys took
   * other paths (ours: a key index larger than its cache, read from RocksDB on every miss), and
   * the measured run spent seconds of its window recompiling what it found deoptimized.
   */
  private static void warmUp(Writer writer, long upserts, int parallelism, long total)
      throws Exception {
    for (long done = 0; done < total; done += upserts) {
      writer.runInTemporaryDirectory(Math.min(upserts, total - done), parallelism, 4);
    }
  }

  /**
   * Collects the heap before a measured run. The earlier jobs' heap (their caches, buffers,
   * state objects) is garbage then; left to the collector, copying and scanning around it cost
   * the measured run's first young collections up to 300 ms of pause each. A job that runs on
   * does not carry a previous job's heap, so every measured run starts on a collected heap.
   */
  private static void collectHeap() {
    System.gc();
  }
}
