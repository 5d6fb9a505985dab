package io.verglas.materializer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * A compaction as any engine would do it with Iceberg's core API, independent of the code under
 * test: for each partition, read the live rows (deletes applied) of the snapshot, write them in
 * a shuffled order into one or more new files (so every row moves to a new file and position),
 * and commit {@code newRewrite()} replacing the old data files and their delete files, validated
 * from the snapshot it read. Supports unpartitioned and identity-partitioned tables. On format
 * version 3 it carries row lineage over as Spark's rewrite and our maintenance job do: each row's
 * {@code _row_id} and {@code _last_updated_sequence_number}, as read, are written explicitly.
 */
public final class TestingCompactor {
  private final Random random;
  private int attempts;
  private int committed;
  private int conflicts;

  public TestingCompactor(long seed) {
    this.random = new Random(seed);
  }

  /** Rewrites every partition of the current snapshot; true when the rewrite committed. */
  public synchronized boolean compact(Table table) {
    Plan plan = prepare(table, false);
    return plan != null && plan.commit();
  }

  /**
   * Rewrites one randomly chosen partition (a smaller rewrite conflicts less often with a busy
   * writer); true when the rewrite committed.
   */
  public synchronized boolean compactOnePartition(Table table) {
    Plan plan = prepare(table, true);
    return plan != null && plan.commit();
  }

  /**
   * Reads the current snapshot and writes the new files, without committing: {@link
   * Plan#commit} later races whatever committed meanwhile. Null when the table has no data.
   */
  public synchronized Plan prepare(Table table) {
    return prepare(table, false);
  }

  private Plan prepare(Table table, boolean onePartition) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return null;
    }
    attempts++;
    Map<String, Group> groups = new LinkedHashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        PartitionSpec spec = table.specs().get(file.specId());
        String key = file.specId() + "/" + spec.partitionToPath(file.partition());
        Group group = groups.computeIfAbsent(key, k -> new Group(spec, file.partition()));
        group.dataFiles.add(file);
        task.deletes().forEach(delete -> group.deleteFiles.putIfAbsent(delete.location(), delete));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (groups.isEmpty()) {
      return null;
    }
    if (onePartition) {
      List<String> keys = new ArrayList<>(groups.keySet());
      String chosen = keys.get(random.nextInt(keys.size()));
      groups.keySet().retainAll(List.of(chosen));
    }
    List<DataFile> written = new ArrayList<>();
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(base.snapshotId());
    for (Group group : groups.values()) {
      List<Record> rows = liveRows(table, base, group);
      Collections.shuffle(rows, random);
      int parts = rows.isEmpty() ? 0 : 1 + random.nextInt(Math.min(3, rows.size()));
      for (int p = 0; p < parts; p++) {
        int from = rows.size() * p / parts;
        int to = rows.size() * (p + 1) / parts;
        written.add(write(table, group, rows.subList(from, to)));
      }
      group.dataFiles.forEach(rewrite::deleteFile);
      group.deleteFiles.values().forEach(rewrite::deleteFile);
    }
    written.forEach(rewrite::addFile);
    return new Plan(table, rewrite, written);
  }

  /** A prepared rewrite. */
  public final class Plan {
    private final Table table;
    private final RewriteFiles rewrite;
    private final List<DataFile> written;

    private Plan(Table table, RewriteFiles rewrite, List<DataFile> written) {
      this.table = table;
      this.rewrite = rewrite;
      this.written = written;
    }

    /** Commits the rewrite; false (and the new files deleted) when validation refuses it. */
    public boolean commit() {
      try {
        rewrite.commit();
        synchronized (TestingCompactor.this) {
          committed++;
        }
        return true;
      } catch (ValidationException | CommitFailedException e) {
        synchronized (TestingCompactor.this) {
          conflicts++;
        }
        written.forEach(file -> table.io().deleteFile(file.location()));
        return false;
      }
    }
  }

  public synchronized int attempts() {
    return attempts;
  }

  public synchronized int committed() {
    return committed;
  }

  public synchronized int conflicts() {
    return conflicts;
  }

  @Override
  public synchronized String toString() {
    return "compactions: " + attempts + " attempted, " + committed + " committed, " + conflicts
        + " refused by validation";
  }

  private static List<Record> liveRows(Table table, Snapshot base, Group group) {
    Expression filter = Expressions.alwaysTrue();
    List<PartitionField> fields = group.spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = fields.get(i);
      if (!field.transform().isIdentity()) {
        throw new IllegalArgumentException("TestingCompactor supports identity partitions only");
      }
      String column = table.schema().findColumnName(field.sourceId());
      Object value = group.partition.get(i, Object.class);
      filter = Expressions.and(filter, value == null
          ? Expressions.isNull(column) : Expressions.equal(column, value));
    }
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table)
        .useSnapshot(base.snapshotId()).where(filter).project(rowSchema(table)).build()) {
      records.forEach(record -> rows.add(record.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private DataFile write(Table table, Group group, List<Record> rows) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 77, attempts)
        .format(FileFormat.PARQUET).build();
    EncryptedOutputFile output = group.spec.isUnpartitioned()
        ? files.newOutputFile() : files.newOutputFile(group.spec, group.partition);
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(rowSchema(table)).build()
        .newDataWriter(output, group.spec, group.spec.isUnpartitioned() ? null : group.partition);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** The table's columns, with the row-lineage columns on format version 3. */
  private static Schema rowSchema(Table table) {
    return TableUtil.formatVersion(table) >= 3
        ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema();
  }

  private static final class Group {
    final PartitionSpec spec;
    final StructLike partition;
    final Set<DataFile> dataFiles = new LinkedHashSet<>();
    final Map<String, DeleteFile> deleteFiles = new LinkedHashMap<>();

    Group(PartitionSpec spec, StructLike partition) {
      this.spec = spec;
      this.partition = partition;
    }
  }
}
