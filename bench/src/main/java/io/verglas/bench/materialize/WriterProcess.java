package io.verglas.bench.materialize;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.bench.ChildJvm;
import io.verglas.bench.ProcessMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One writer of the materialize benchmark in a JVM of its own: a warm-up run whose results are
 * discarded, then the measured run; the outcome goes to a JSON file the benchmark reads.
 */
public final class WriterProcess {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WriterProcess() {}

  /**
   * Runs {@code writer} in a child JVM and returns what it measured, or why it failed (also when
   * the process died without a word).
   */
  static WriterOutcome launch(Writer writer, long upserts, int parallelism, int freshnessSegments,
      long warmUpUpserts) throws Exception {
    Path out = Files.createTempFile("verglas-bench-" + writer.name().toLowerCase() + "-", ".json");
    try {
      ChildJvm.run(WriterProcess.class, List.of(writer.name(), Long.toString(upserts),
          Integer.toString(parallelism), Integer.toString(freshnessSegments),
          Long.toString(warmUpUpserts), out.toString()), MaterializeBenchmark.TIMEOUT);
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
   * outcome file. Exits 0 once the outcome (a failure included) is written.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException("Usage: WriterProcess WRITER UPSERTS PARALLELISM "
          + "FRESHNESS_SEGMENTS WARM_UP_UPSERTS OUTCOME_FILE");
    }
    Writer writer = Writer.valueOf(args[0]);
    long upserts = Long.parseLong(args[1]);
    int parallelism = Integer.parseInt(args[2]);
    int freshnessSegments = Integer.parseInt(args[3]);
    long warmUpUpserts = Long.parseLong(args[4]);
    WriterOutcome outcome;
    try {
      if (warmUpUpserts > 0) {
        writer.runInTemporaryDirectory(warmUpUpserts, parallelism, 4);
      }
      outcome = writer.runInTemporaryDirectory(upserts, parallelism, freshnessSegments);
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      outcome = WriterOutcome.failed(MaterializeBenchmark.describe(e));
    }
    JSON.writeValue(Path.of(args[5]).toFile(), outcome.withMemory(ProcessMemory.Usage.now()));
    // Flink's MiniCluster and the S3 endpoint may leave non-daemon threads behind.
    System.exit(0);
  }
}
