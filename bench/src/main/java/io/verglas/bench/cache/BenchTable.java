package io.verglas.bench.cache;

import io.verglas.cache.parquet.ParquetFooter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's table: Parquet data files of a wide table (32 numeric columns, uncompressed,
 * random values so sizes are what they say), written with Iceberg's Parquet writer straight into
 * the origin's bucket directory under an Iceberg data path ({@code .../data/*.parquet}), and the
 * layout of each file read back from its footer.
 *
 * <p>The workload is what a columnar engine issues for a projection: per file, the trailer
 * ({@code bytes=len-8..len-1}) and the footer, then every row group's chunk of each projected
 * column. Queries project overlapping sets of the first eight columns, so a pass re-reads
 * ranges (the "repeated column-range reads") and the hot set is about a quarter of the table.
 */
final class BenchTable {
  static final int COLUMNS = 32;
  static final List<List<Integer>> QUERIES = List.of(List.of(0, 1, 2, 3), List.of(2, 3, 4, 5), List.of(4, 5, 6, 7));

  /** One data file: object key, local path, length and column layout. */
  record DataFile(String key, Path path, long length, int footerSuffix, ParquetFooter footer) {}

  /** One ranged GET: bytes {@code [start, end]} of {@code key}. */
  record Range(String key, long start, long end) {
    long length() {
      return end - start + 1;
    }
  }

  private BenchTable() {}

  static Schema schema() {
    List<Types.NestedField> fields = new ArrayList<>();
    for (int i = 0; i < COLUMNS; i++) {
      fields.add(Types.NestedField.required(i + 1, String.format("c%02d", i),
          i % 2 == 0 ? Types.LongType.get() : Types.DoubleType.get()));
    }
    return new Schema(fields);
  }

  /**
   * Writes {@code files} files of about {@code bytesPerFile} bytes into
   * {@code bucketDir/<prefix>data/}, with row groups of {@code rowGroupBytes}.
   */
  static List<DataFile> generate(Path bucketDir, String prefix, int files, long bytesPerFile,
      long rowGroupBytes, long seed) throws IOException {
    Schema schema = schema();
    Path dataDir = Files.createDirectories(bucketDir.resolve(prefix + "data"));
    long rows = bytesPerFile / (COLUMNS * 8L);
    List<DataFile> written = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      String name = String.format("%05d-0-bench.parquet", f);
      Path path = dataDir.resolve(name);
      DataWriter<Record> writer = FormatModelRegistry.<Record, Object>dataWriteBuilder(FileFormat.PARQUET,
              Record.class, EncryptedFiles.plainAsEncryptedOutput(org.apache.iceberg.Files.localOutput(path.toFile())))
          .schema(schema)
          .spec(PartitionSpec.unpartitioned())
          .set("write.parquet.row-group-size-bytes", Long.toString(rowGroupBytes))
          .set("write.parquet.page-size-bytes", Integer.toString(256 * 1024))
          .set("write.parquet.dict-size-bytes", "1")
          .set("write.parquet.compression-codec", "uncompressed")
          .overwrite()
          .build();
      Random random = new Random(seed + f);
      GenericRecord record = GenericRecord.create(schema);
      try {
        for (long r = 0; r < rows; r++) {
          for (int c = 0; c < COLUMNS; c++) {
            record.set(c, c % 2 == 0 ? (Object) random.nextLong() : (Object) random.nextDouble());
          }
          writer.write(record);
        }
      } finally {
        writer.close();
      }
      written.add(describe(prefix + "data/" + name, path));
    }
    return written;
  }

  /** Reads the footer of a local file, as a reader of the object would. */
  static DataFile describe(String key, Path path) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long length = ch.size();
      byte[] trailer = read(ch, length - 8, 8);
      int suffix = ParquetFooter.suffixLength(trailer);
      ParquetFooter footer = ParquetFooter.parseSuffix(read(ch, length - suffix, suffix));
      for (ParquetFooter.RowGroup g : footer.rowGroups()) {
        for (ParquetFooter.ColumnChunk c : g.columns()) {
          if (c.start() < 4 || c.end() > length - suffix) {
            throw new IllegalStateException("Cannot use " + path + ": column chunk " + c
                + " lies outside the data region");
          }
        }
      }
      return new DataFile(key, path, length, suffix, footer);
    }
  }

  static byte[] read(FileChannel ch, long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (ch.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("Cannot read " + length + " bytes at " + position + ": end of file");
      }
    }
    return buffer.array();
  }

  /** A pass: for every query and file, the reads of one engine task, in order. */
  static List<List<Range>> pass(List<DataFile> files) {
    List<List<Range>> tasks = new ArrayList<>();
    for (List<Integer> projection : QUERIES) {
      for (DataFile file : files) {
        List<Range> task = new ArrayList<>();
        task.add(new Range(file.key(), file.length() - 8, file.length() - 1));
        task.add(new Range(file.key(), file.length() - file.footerSuffix(), file.length() - 9));
        for (ParquetFooter.RowGroup g : file.footer().rowGroups()) {
          for (int column : projection) {
            ParquetFooter.ColumnChunk c = g.columns().get(column);
            task.add(new Range(file.key(), c.start(), c.end() - 1));
          }
        }
        tasks.add(task);
      }
    }
    return tasks;
  }

  /** {@code n} ranges of {@code length} bytes at random places inside hot column chunks. */
  static List<Range> hotSamples(List<DataFile> files, int n, int length, long seed) {
    Random random = new Random(seed);
    List<Range> out = new ArrayList<>();
    while (out.size() < n) {
      DataFile file = files.get(random.nextInt(files.size()));
      List<ParquetFooter.RowGroup> groups = file.footer().rowGroups();
      ParquetFooter.RowGroup g = groups.get(random.nextInt(groups.size()));
      List<Integer> projection = QUERIES.get(random.nextInt(QUERIES.size()));
      ParquetFooter.ColumnChunk c = g.columns().get(projection.get(random.nextInt(projection.size())));
      if (c.length() < length) {
        continue;
      }
      long start = c.start() + (long) (random.nextDouble() * (c.length() - length));
      out.add(new Range(file.key(), start, start + length - 1));
    }
    return out;
  }

  static byte[] localBytes(DataFile file, Range range) {
    try (FileChannel ch = FileChannel.open(file.path(), StandardOpenOption.READ)) {
      return read(ch, range.start(), (int) range.length());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
