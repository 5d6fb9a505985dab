package io.verglas.cli.push;

import io.verglas.cli.stack.StackOptions;
import io.verglas.cli.table.TableNames;
import io.verglas.sdk.BatchCompression;
import io.verglas.sdk.RowBatchBuilder;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code verglas push --table NS.T FILE}: CSV, JSON lines or Parquet rows into a table. */
@Command(name = "push", mixinStandardHelpOptions = true,
    description = "Push rows from a CSV (with header), JSON-lines or Parquet file into a table over "
        + "Arrow Flight. Columns match by name; an _op column with value D deletes the key. "
        + "Rows are acknowledged once durable in the WAL.")
public final class PushCommand implements Callable<Integer> {
  enum Format { CSV, JSONL, PARQUET }

  @Mixin StackOptions stack;

  @Option(names = "--table", required = true, paramLabel = "NS.TABLE")
  String table;

  @Parameters(index = "0", paramLabel = "FILE")
  Path file;

  @Option(names = "--format", description = "csv, jsonl or parquet (default: from the file extension)")
  Format format;

  @Option(names = "--batch-rows", defaultValue = "10000", description = "Rows per batch (default: ${DEFAULT-VALUE})")
  int batchRows;

  @Option(names = "--compression", defaultValue = "zstd", description = "How batches travel: "
      + "zstd, lz4_frame or none; the server writes compressed batches to the WAL as they come "
      + "(default: ${DEFAULT-VALUE})")
  String compression;

  @Option(names = "--compress-min-bytes", defaultValue = "65536", description = "Batches with "
      + "fewer bytes of Arrow buffers go uncompressed (default: ${DEFAULT-VALUE})")
  long compressMinBytes;

  @Override
  public Integer call() throws Exception {
    TableIdentifier id = TableNames.parse(table);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("Cannot push " + file + ": no such file");
    }
    if (batchRows < 1) {
      throw new IllegalArgumentException("Invalid --batch-rows: " + batchRows);
    }
    AtomicLong acked = new AtomicLong();
    long rows = 0;
    long start = System.nanoTime();
    ProgressBar bar = new ProgressBar(System.err);
    BatchCompression batchCompression =
        BatchCompression.of(BatchCompression.Codec.parse(compression), compressMinBytes);
    try (VerglasClient client = stack.client(batchCompression);
        RowSource source = open(formatOf(file));
        RowBatchBuilder builder = client.rowBatchBuilder(id);
        TableWriter writer = client.openWriter(id, ack -> acked.addAndGet(ack.rows()))) {
      while (source.hasNext()) {
        builder.add(source.next());
        rows++;
        if (builder.rowCount() >= batchRows) {
          send(writer, builder);
        }
        bar.update(source.progress(), rows, acked.get());
      }
      if (builder.rowCount() > 0) {
        send(writer, builder);
      }
      writer.flush();
    } finally {
      bar.finish(rows == 0 ? 1.0 : acked.get() / (double) rows, rows, acked.get());
      if (acked.get() < rows) {
        System.err.printf("%,d of %,d rows were acknowledged before the failure; the rest were not written.%n",
            acked.get(), rows);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("Pushed %,d rows to %s in %.1f s (%,.0f rows/s); all acknowledged.%n",
        rows, id, seconds, rows / Math.max(seconds, 1e-3));
    return 0;
  }

  private static void send(TableWriter writer, RowBatchBuilder builder) {
    try (VectorSchemaRoot batch = builder.build()) {
      writer.write(batch);
    }
  }

  private RowSource open(Format chosen) throws IOException {
    switch (chosen) {
      case CSV: return new CsvRowSource(file);
      case JSONL: return new JsonLinesRowSource(file);
      default: return new ParquetRowSource(file);
    }
  }

  private Format formatOf(Path path) {
    if (format != null) {
      return format;
    }
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".csv")) {
      return Format.CSV;
    } else if (name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json")) {
      return Format.JSONL;
    } else if (name.endsWith(".parquet")) {
      return Format.PARQUET;
    }
    throw new IllegalArgumentException("Cannot tell the format of " + path
        + " from its name; use --format csv|jsonl|parquet");
  }
}
