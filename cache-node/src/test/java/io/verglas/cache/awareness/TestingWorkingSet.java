package io.verglas.cache.awareness;

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
 * A partitioned table whose data files are several cache blocks long, the queries of a working
 * set on it, and its compaction, all with Iceberg's own Java API.
 *
 * <p>A query reads the way an engine does: it plans with a fresh catalog client, reads each
 * planned file's Parquet footer (a suffix read, then the footer) and then, with exact ranged
 * GETs ({@link RangeReadable}), only the column chunks of its projected columns. The compaction
 * is Iceberg's {@code RewriteFiles} ({@code table.newRewrite()}, a {@code replace} snapshot): a
 * partition's files are replaced by one file holding the same rows, written with Iceberg's
 * generic Parquet writer (the rows are regenerated from their seeds, so the rewrite reads
 * nothing through the node and adds no heat of its own, like a rewrite run by another engine).
 */
final class TestingWorkingSet {
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
   * The three-query working set: few columns of some partitions. No two queries read the same
   * or adjacent column chunks (each chunk is over a block long), so within a wave no query
   * finds a block another query fetched: a wave's hits are what the cache held before it.
   */
  static final List<Query> WORKING_SET = List.of(
      new Query(Set.of(0, 1), Set.of("a")),
      new Query(Set.of(2), Set.of("a", "c")),
      new Query(Set.of(0), Set.of("c")));

  private final int rowsPerFile;
  private final int valueLength;
  private int tasks;

  TestingWorkingSet(int rowsPerFile, int valueLength) {
    this.rowsPerFile = rowsPerFile;
    this.valueLength = valueLength;
  }

  static Table create(Catalog catalog, String namespace, String name) {
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(Namespace.of(namespace))) {
      namespaces.createNamespace(Namespace.of(namespace));
    }
    return catalog.createTable(TableIdentifier.of(namespace, name), SCHEMA, SPEC,
        Map.of("write.parquet.compression-codec", "uncompressed"));
  }

  /** Appends {@code filesPerPartition} files to each of {@code partitions} partitions, one commit. */
  void append(Table table, int partitions, int filesPerPartition) {
    org.apache.iceberg.AppendFiles append = table.newAppend();
    for (int p = 0; p < partitions; p++) {
      for (int f = 0; f < filesPerPartition; f++) {
        append.appendFile(write(table, p, List.of(seed(p, f))));
      }
    }
    append.commit();
  }

  /** Rewrites each partition's files into one file with the same rows (a {@code replace} commit). */
  void compact(Table table, int partitions, int filesPerPartition) {
    table.refresh();
    org.apache.iceberg.RewriteFiles rewrite = table.newRewrite();
    for (int p = 0; p < partitions; p++) {
      List<Long> seeds = new ArrayList<>();
      for (int f = 0; f < filesPerPartition; f++) {
        seeds.add(seed(p, f));
      }
      for (DataFile old : files(table, p)) {
        rewrite.deleteFile(old);
      }
      rewrite.addFile(write(table, p, seeds));
    }
    rewrite.commit();
  }

  private static long seed(int partition, int file) {
    return partition * 1000L + file;
  }

  private static List<DataFile> files(Table table, int partition) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan()
        .filter(Expressions.equal("part", partition)).planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private DataFile write(Table table, int partition, List<Long> seeds) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    GenericRecord template = GenericRecord.create(table.schema());
    template.setField("part", partition);
    key.partition(template);
    OutputFileFactory files = OutputFileFactory.builderFor(table, partition, tasks++)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(files.newOutputFile(table.spec(), key), table.spec(), key);
    try (DataWriter<Record> closing = writer) {
      for (long seed : seeds) {
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

  /**
   * Runs {@code query} against the table as loaded by {@code client} (at {@code snapshotId}, or
   * the current snapshot if null); returns the column bytes read.
   */
  static long run(Catalog client, String namespace, String name, Query query, Long snapshotId) {
    Table table = client.loadTable(TableIdentifier.of(namespace, name));
    org.apache.iceberg.TableScan scan = table.newScan()
        .filter(Expressions.in("part", query.partitions().toArray()));
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) {
        bytes += readColumns(table.io().newInputFile(task.file().location()), query.columns());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes;
  }

  private static long readColumns(InputFile file, Set<String> columns) throws IOException {
    long length = file.getLength();
    try (SeekableInputStream in = file.newStream()) {
      RangeReadable ranges = (RangeReadable) in;
      byte[] trailer = new byte[8];
      ranges.readFully(length - 8, trailer, 0, 8);
      int suffix = ParquetFooter.suffixLength(trailer);
      byte[] footer = new byte[suffix];
      ranges.readFully(length - suffix, footer, 0, suffix);
      long read = 0;
      for (ParquetFooter.RowGroup group : ParquetFooter.parseSuffix(footer).rowGroups()) {
        for (ParquetFooter.ColumnChunk chunk : group.columns()) {
          if (columns.contains(chunk.path())) {
            byte[] bytes = new byte[(int) chunk.length()];
            ranges.readFully(chunk.start(), bytes, 0, bytes.length);
            read += bytes.length;
          }
        }
      }
      return read;
    }
  }
}
