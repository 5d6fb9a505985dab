package io.verglas.bench.awareness;

import io.verglas.cache.parquet.ParquetFooter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's table and workload, with Iceberg's own Java API: a table partitioned by
 * {@code part} with three string columns of incompressible values (uncompressed Parquet, so a
 * column chunk is as long as its values), a three-query working set that reads a few columns of
 * some partitions, and its compaction.
 *
 * <p>A query reads as an engine does: it plans with a fresh catalog client, reads each planned
 * file's trailer and footer, then only its projected column chunks, with exact ranged GETs
 * ({@link RangeReadable}). Planning alone ({@link #plan}) is the same without the column reads.
 * The compaction is Iceberg's {@code RewriteFiles} (a {@code replace} snapshot) replacing each
 * partition's files by one file with the same rows, regenerated from their seeds: it reads
 * nothing through the caches and so adds no heat of its own, like a rewrite run by another
 * engine against the bucket.
 */
final class WorkingSetTable {
  static final String NAMESPACE = "bench";
  static final String NAME = "sales";
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "part", Types.IntegerType.get()),
      Types.NestedField.required(3, "a", Types.StringType.get()),
      Types.NestedField.required(4, "b", Types.StringType.get()),
      Types.NestedField.required(5, "c", Types.StringType.get()));
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("part").build();
  private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** Which partitions a query reads, and which columns. */
  record Query(Set<Integer> partitions, Set<String> columns) {}

  /**
   * The working set. No two queries read the same or adjacent column chunks (each chunk is
   * over a block long), so within a wave no query finds a block another one fetched.
   */
  static final List<Query> WORKING_SET = List.of(
      new Query(Set.of(0, 1), Set.of("a")),
      new Query(Set.of(2), Set.of("a", "c")),
      new Query(Set.of(0), Set.of("c")));

  private final int partitions;
  private final int rowsPerFile;
  private final int valueLength;
  private final List<List<Long>> seeds = new ArrayList<>();
  private int tasks;

  WorkingSetTable(int partitions, int rowsPerFile, int valueLength) {
    this.partitions = partitions;
    this.rowsPerFile = rowsPerFile;
    this.valueLength = valueLength;
    for (int p = 0; p < partitions; p++) {
      seeds.add(new ArrayList<>());
    }
  }

  static Table create(Catalog catalog) {
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(Namespace.of(NAMESPACE))) {
      namespaces.createNamespace(Namespace.of(NAMESPACE));
    }
    return catalog.createTable(TableIdentifier.of(NAMESPACE, NAME), SCHEMA, SPEC,
        Map.of("write.parquet.compression-codec", "uncompressed"));
  }

  /** Appends one new file to every partition, in one commit. */
  void appendFilePerPartition(Table table) {
    org.apache.iceberg.AppendFiles append = table.newAppend();
    for (int p = 0; p < partitions; p++) {
      long seed = p * 1000L + seeds.get(p).size();
      seeds.get(p).add(seed);
      append.appendFile(write(table, p, List.of(seed)));
    }
    append.commit();
  }

  /** Rewrites each partition's files into one file with the same rows (a replace commit). */
  void compact(Table table) {
    table.refresh();
    org.apache.iceberg.RewriteFiles rewrite = table.newRewrite();
    for (int p = 0; p < partitions; p++) {
      try (CloseableIterable<FileScanTask> planned = table.newScan()
          .filter(Expressions.equal("part", p)).planFiles()) {
        planned.forEach(task -> rewrite.deleteFile(task.file()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      rewrite.addFile(write(table, p, seeds.get(p)));
    }
    rewrite.commit();
  }

  private DataFile write(Table table, int partition, List<Long> fileSeeds) {
    GenericRecord template = GenericRecord.create(table.schema());
    template.setField("part", partition);
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(template);
    OutputFileFactory files = OutputFileFactory.builderFor(table, partition, tasks++)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(files.newOutputFile(table.spec(), key), table.spec(), key);
    try (DataWriter<Record> closing = writer) {
      for (long seed : fileSeeds) {
        Random random = new Random(seed);
        for (int i = 0; i < rowsPerFile; i++) {
          GenericRecord record = GenericRecord.create(table.schema());
          record.setField("id", seed * rowsPerFile + i);
          record.setField("part", partition);
          record.setField("a", value(random));
          record.setField("b", value(random));
          record.setField("c", value(random));
          closing.write(record);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private String value(Random random) {
    char[] chars = new char[valueLength];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
    }
    return new String(chars);
  }

  /** Plans a full scan and reads every planned file's footer; returns the files. */
  static int plan(Catalog client) throws IOException {
    Table table = client.loadTable(TableIdentifier.of(NAMESPACE, NAME));
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        InputFile file = table.io().newInputFile(task.file().location());
        try (SeekableInputStream in = file.newStream()) {
          footer((RangeReadable) in, file.getLength());
        }
        files++;
      }
    }
    return files;
  }

  /** Runs a query on the current snapshot; returns the column bytes read. */
  static long run(Catalog client, Query query) throws IOException {
    Table table = client.loadTable(TableIdentifier.of(NAMESPACE, NAME));
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan()
        .filter(Expressions.in("part", query.partitions().toArray())).planFiles()) {
      for (FileScanTask task : tasks) {
        InputFile file = table.io().newInputFile(task.file().location());
        try (SeekableInputStream in = file.newStream()) {
          bytes += readColumns((RangeReadable) in, file.getLength(), query.columns());
        }
      }
    }
    return bytes;
  }

  private static ParquetFooter footer(RangeReadable in, long length) throws IOException {
    byte[] trailer = new byte[8];
    in.readFully(length - 8, trailer, 0, 8);
    int suffix = ParquetFooter.suffixLength(trailer);
    byte[] footer = new byte[suffix];
    in.readFully(length - suffix, footer, 0, suffix);
    return ParquetFooter.parseSuffix(footer);
  }

  private static long readColumns(RangeReadable in, long length, Set<String> columns) throws IOException {
    long read = 0;
    for (ParquetFooter.RowGroup group : footer(in, length).rowGroups()) {
      for (ParquetFooter.ColumnChunk chunk : group.columns()) {
        if (columns.contains(chunk.path())) {
          byte[] bytes = new byte[(int) chunk.length()];
          in.readFully(chunk.start(), bytes, 0, bytes.length);
          read += bytes.length;
        }
      }
    }
    return read;
  }
}
