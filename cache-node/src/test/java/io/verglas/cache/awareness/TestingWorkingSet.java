package io.verglas.cache.awareness;

import io.verglas.cache.parquet.ParquetFooter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
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
 * set on it, and its compaction, all with Iceberg's own Java API. It is shared: cache-node's
 * awareness tests use it, and so does the bench module's {@code awareness} benchmark, through
 * this module's test-jar (which holds only this class), so the two measure the same workload.
 *
 * <p>The table is partitioned by {@code part}, with three string columns of incompressible
 * values (uncompressed Parquet, so a column chunk is as long as its values). Every file's rows
 * come from one seed, {@code partition * 1000 + n} for the partition's n-th file; the instance
 * remembers each partition's seeds, which is why it serves one table only.
 *
 * <p>A query reads the way an engine does: it plans with the given catalog client, reads each
 * planned file's Parquet footer (a suffix read, then the footer) and then, with exact ranged
 * GETs ({@link RangeReadable}), only the column chunks of its projected columns. Planning alone
 * ({@link #plan}) is the same without the column reads. The compaction is Iceberg's
 * {@code RewriteFiles} (a {@code replace} snapshot): each partition's files are replaced by one
 * file holding the same rows, regenerated from their seeds, so the rewrite reads nothing
 * through a cache node and adds no heat of its own, like a rewrite run by another engine.
 */
public final class TestingWorkingSet {
  public static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "part", Types.IntegerType.get()),
      Types.NestedField.required(3, "a", Types.StringType.get()),
      Types.NestedField.required(4, "b", Types.StringType.get()),
      Types.NestedField.required(5, "c", Types.StringType.get()));
  public static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("part").build();
  private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** Which partitions a query reads, and which columns. */
  public record Query(Set<Integer> partitions, Set<String> columns) {}

  /**
   * The three-query working set: few columns of some partitions. No two queries read the same
   * or adjacent column chunks (each chunk is over a block long), so within a wave no query
   * finds a block another query fetched: a wave's hits are what the cache held before it.
   */
  public static final List<Query> WORKING_SET = List.of(
      new Query(Set.of(0, 1), Set.of("a")),
      new Query(Set.of(2), Set.of("a", "c")),
      new Query(Set.of(0), Set.of("c")));

  private final TableIdentifier identifier;
  private final int partitions;
  private final int rowsPerFile;
  private final int valueLength;
  private final List<List<Long>> seeds = new ArrayList<>();
  private int tasks;

  /** The working set of table {@code namespace.name} with {@code partitions} partitions. */
  public TestingWorkingSet(String namespace, String name, int partitions, int rowsPerFile, int valueLength) {
    this.identifier = TableIdentifier.of(namespace, name);
    this.partitions = partitions;
    this.rowsPerFile = rowsPerFile;
    this.valueLength = valueLength;
    for (int p = 0; p < partitions; p++) {
      seeds.add(new ArrayList<>());
    }
  }

  /** Creates the (empty) table, and its namespace if the catalog has namespaces and lacks it. */
  public Table create(Catalog catalog) {
    Namespace namespace = identifier.namespace();
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
      namespaces.createNamespace(namespace);
    }
    return catalog.createTable(identifier, SCHEMA, SPEC, Map.of("write.parquet.compression-codec", "uncompressed"));
  }

  /** Appends {@code filesPerPartition} new files to every partition, in one commit. */
  public void append(Table table, int filesPerPartition) {
    AppendFiles append = table.newAppend();
    for (int p = 0; p < partitions; p++) {
      for (int f = 0; f < filesPerPartition; f++) {
        long seed = p * 1000L + seeds.get(p).size();
        seeds.get(p).add(seed);
        append.appendFile(write(table, p, List.of(seed)));
      }
    }
    append.commit();
  }

  /** Rewrites each partition's files into one file with the same rows (a {@code replace} commit). */
  public void compact(Table table) {
    table.refresh();
    RewriteFiles rewrite = table.newRewrite();
    for (int p = 0; p < partitions; p++) {
      for (DataFile old : files(table, p)) {
        rewrite.deleteFile(old);
      }
      rewrite.addFile(write(table, p, seeds.get(p)));
    }
    rewrite.commit();
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

  private DataFile write(Table table, int partition, List<Long> fileSeeds) {
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

  /** Plans a full scan of the current snapshot and reads every planned file's footer; returns the files. */
  public int plan(Catalog client) {
    Table table = client.loadTable(identifier);
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        read(table.io().newInputFile(task.file().location()), Set.of());
        files++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Runs {@code query} on the current snapshot; returns the column bytes read. */
  public long run(Catalog client, Query query) {
    return run(client, query, null);
  }

  /**
   * Runs {@code query} against the table as loaded by {@code client} (at {@code snapshotId}, or
   * the current snapshot if null); returns the column bytes read.
   */
  public long run(Catalog client, Query query, Long snapshotId) {
    Table table = client.loadTable(identifier);
    TableScan scan = table.newScan().filter(Expressions.in("part", query.partitions().toArray()));
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) {
        bytes += read(table.io().newInputFile(task.file().location()), query.columns());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes;
  }

  /** Reads the file's trailer and footer, then the chunks of {@code columns}; returns their bytes. */
  private static long read(InputFile file, Set<String> columns) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      RangeReadable ranges = (RangeReadable) in;
      long read = 0;
      for (ParquetFooter.RowGroup group : footer(ranges, file.getLength()).rowGroups()) {
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

  private static ParquetFooter footer(RangeReadable in, long length) throws IOException {
    byte[] trailer = new byte[8];
    in.readFully(length - 8, trailer, 0, 8);
    int suffix = ParquetFooter.suffixLength(trailer);
    byte[] footer = new byte[suffix];
    in.readFully(length - suffix, footer, 0, suffix);
    return ParquetFooter.parseSuffix(footer);
  }
}
