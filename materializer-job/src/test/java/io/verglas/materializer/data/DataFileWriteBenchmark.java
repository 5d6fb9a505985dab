package io.verglas.materializer.data;

import io.verglas.row.RowCodec;
import io.verglas.row.RowDecoder;
import io.verglas.row.RowFields;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A data file written from WAL payloads, per row: {@code payloads} checks each payload against
 * the schema and writes its bytes with {@link PayloadParquetWriter} (what the writer does, the
 * check on the flush thread), {@code records} decodes each payload into an Iceberg record and
 * writes it with Iceberg's generic writer (what it did before, the decode on the flush thread).
 * Rows as in the materialize benchmark: 10 columns (longs, doubles, an int, three strings, one
 * unique per row), {@value #ROWS} per file, the file closed at the end of each invocation, zstd
 * as new tables have it. Run: {@code mvn -Pjmh -pl materializer-job -am verify
 * -Djmh.args=DataFileWriteBenchmark} (add {@code -prof gc} for the bytes allocated per row).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xmx2g"})
public class DataFileWriteBenchmark {
  static final int ROWS = 100_000;
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "account_id", Types.LongType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "category", Types.StringType.get()),
      Types.NestedField.optional(5, "note", Types.StringType.get()),
      Types.NestedField.optional(6, "price", Types.DoubleType.get()),
      Types.NestedField.optional(7, "quantity", Types.DoubleType.get()),
      Types.NestedField.optional(8, "created_ms", Types.LongType.get()),
      Types.NestedField.optional(9, "updated_ms", Types.LongType.get()),
      Types.NestedField.optional(10, "score", Types.IntegerType.get()));
  /** What a new table holds (Iceberg sets zstd at creation); the writer adds its level. */
  static final Map<String, String> TABLE_PROPERTIES =
      Map.of(TableProperties.PARQUET_COMPRESSION, "zstd");
  private static final String[] CATEGORIES = {"books", "garden", "tools", "music", "toys"};

  private byte[][] payloads;
  private RowDecoder decoder;
  private RowFields fields;
  private int[] offsets;
  private Path dir;
  private int file;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("verglas-data-file-bench");
    decoder = new RowDecoder(SCHEMA);
    fields = new RowFields(SCHEMA);
    offsets = new int[fields.size()];
    payloads = new byte[ROWS][];
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < ROWS; i++) {
      payloads[i] = RowCodec.encode(row(i, random), SCHEMA);
    }
  }

  private static Record row(int i, SplittableRandom random) {
    long id = random.nextLong(500_000);
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.set(0, id);
    record.set(1, random.nextLong(1_000_000));
    record.set(2, String.format("user-%010d", id));
    record.set(3, CATEGORIES[random.nextInt(CATEGORIES.length)]);
    record.set(4, Long.toString(random.nextLong(), 36) + "-" + i);
    record.set(5, random.nextDouble() * 1_000);
    record.set(6, (double) random.nextInt(100));
    record.set(7, 1_767_225_600_000L + id);
    record.set(8, 1_767_225_600_000L + i);
    record.set(9, random.nextInt(100));
    return record;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try (var files = Files.list(dir)) {
      for (Path path : files.toList()) {
        Files.delete(path);
      }
    }
    Files.delete(dir);
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long payloads() throws IOException {
    try (DataWriter<byte[]> writer = writer(PayloadParquetWriter::create)) {
      for (byte[] payload : payloads) {
        fields.locate(payload, offsets);
        writer.write(payload);
      }
      writer.close();
      return writer.toDataFile().fileSizeInBytes();
    }
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long records() throws IOException {
    try (DataWriter<Record> writer = writer(GenericParquetWriter::create)) {
      for (byte[] payload : payloads) {
        writer.write(decoder.decode(payload));
      }
      writer.close();
      return writer.toDataFile().fileSizeInBytes();
    }
  }

  private <T> DataWriter<T> writer(
      BiFunction<Schema, MessageType, ParquetValueWriter<?>> model) throws IOException {
    Path path = dir.resolve("file-" + (file++ % 4) + ".parquet");
    return Parquet.writeData(org.apache.iceberg.Files.localOutput(path.toFile()))
        .schema(SCHEMA)
        .setAll(TABLE_PROPERTIES)
        .withSpec(PartitionSpec.unpartitioned())
        .metricsConfig(MetricsConfig.getDefault())
        .setAll(DataFileProperties.of(TABLE_PROPERTIES, SCHEMA))
        .createWriterFunc(model)
        .overwrite()
        .build();
  }
}
