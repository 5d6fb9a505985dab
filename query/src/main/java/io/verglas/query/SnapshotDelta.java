package io.verglas.query;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The rows inserted, updated and deleted between two snapshots of one table, from the data files
 * and the deletion vectors (or position deletes) of the two snapshots.
 *
 * <p>Design. Iceberg's {@code IncrementalChangelogScan} refuses deletion vectors, so the change
 * is computed by position: a row of snapshot {@code from} is <em>removed</em> when its data file
 * is gone at {@code to} or a delete of {@code to} covers its position; a row of {@code to} is
 * <em>added</em> when its data file is new since {@code from}. Only files whose presence or
 * delete files differ between the two plans are read (the plans come from manifests, which the
 * cache node serves from its tiers). Then rows meet by primary key (the table's identifier
 * fields): removed and added → updated (unless equal: a compaction moved the row), removed only
 * → deleted, added only → inserted. A row inserted and deleted within the range is in neither
 * snapshot and is not reported. A table without a primary key reports added rows as inserted and
 * removed ones as deleted, minus pairs of equal rows. Equality deletes cannot be placed by
 * position and are refused.
 *
 * <p>Memory: the changed rows are held to be paired, at most the node's row limit of them (then
 * the query is refused with 422, asking for a shorter range).
 */
final class SnapshotDelta {
  private static final int DEADLINE_CHECK_ROWS = 256;

  private final Table table;
  private final Snapshot from;
  private final Snapshot to;
  private final TableReads reads;
  private final int maxRows;
  private final Schema schema;
  private final Schema projection;
  private final BaseDeleteLoader loader;
  private final List<Map<String, Object>> removed = new ArrayList<>();
  private final List<Map<String, Object>> added = new ArrayList<>();
  private long rowsRead;

  /** @param from the older snapshot, or null for the empty table before the first commit */
  SnapshotDelta(Table table, Snapshot from, Snapshot to, TableReads reads, int maxRows) {
    this.table = table;
    this.from = from;
    this.to = Objects.requireNonNull(to, "to");
    this.reads = reads;
    this.maxRows = maxRows;
    this.schema = reads.schema();
    this.projection = TypeUtil.join(schema, new Schema(MetadataColumns.ROW_POSITION));
    this.loader = new BaseDeleteLoader(delete -> table.io().newInputFile(delete));
  }

  /** {@code from}, {@code inserted}, {@code updated} ({@code before}, {@code after}), {@code deleted}. */
  Map<String, Object> compute(ResultBudget budget) {
    checkAncestry();
    Map<String, FileScanTask> before = from == null ? Map.of() : plan(from);
    Map<String, FileScanTask> after = plan(to);
    for (FileScanTask task : after.values()) {
      FileScanTask old = before.get(task.file().location());
      if (old == null) {
        read(task, deletes(task), null, added);
      } else if (!deletePaths(old).equals(deletePaths(task))) {
        read(task, deletes(old), deletes(task), removed);
      }
    }
    for (FileScanTask task : before.values()) {
      if (!after.containsKey(task.file().location())) {
        read(task, deletes(task), null, removed);
      }
    }
    return pair(budget);
  }

  private void checkAncestry() {
    if (from != null && from.snapshotId() != to.snapshotId()
        && !SnapshotUtil.isAncestorOf(table, to.snapshotId(), from.snapshotId())) {
      throw QueryException.badRequest("Cannot compute the delta of " + table.name() + ": snapshot "
          + from.snapshotId() + " is not an ancestor of " + to.snapshotId());
    }
  }

  private Map<String, Object> pair(ResultBudget budget) {
    List<String> key = keyColumns();
    List<Map<String, Object>> inserted = new ArrayList<>();
    List<Map<String, Object>> updated = new ArrayList<>();
    Map<Object, Map<String, Object>> gone = new LinkedHashMap<>();
    List<Map<String, Object>> deleted = new ArrayList<>();
    for (Map<String, Object> row : removed) {
      if (key.isEmpty()) {
        deleted.add(row);
      } else {
        gone.put(keyOf(row, key), row);
      }
    }
    for (Map<String, Object> row : added) {
      Map<String, Object> old = key.isEmpty() ? (deleted.remove(row) ? row : null)
          : gone.remove(keyOf(row, key));
      if (old == null) {
        inserted.add(budgeted(row, budget));
      } else if (!old.equals(row)) {
        Map<String, Object> change = new LinkedHashMap<>();
        change.put("before", old);
        change.put("after", row);
        updated.add(budgeted(change, budget));
      }
    }
    deleted.addAll(gone.values());
    deleted.forEach(budget);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("from", from == null ? null : from.snapshotId());
    answer.put("inserted", inserted);
    answer.put("updated", updated);
    answer.put("deleted", deleted);
    return answer;
  }

  private static <T> T budgeted(T value, ResultBudget budget) {
    budget.accept(value);
    return value;
  }

  private List<String> keyColumns() {
    List<String> key = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      if (schema.identifierFieldIds().contains(field.fieldId())) {
        key.add(field.name());
      }
    }
    return key;
  }

  private static Object keyOf(Map<String, Object> row, List<String> key) {
    List<Object> values = new ArrayList<>(key.size());
    key.forEach(column -> values.add(row.get(column)));
    return values;
  }

  /**
   * Adds to {@code sink} the rows of the task's file that {@code live} does not delete and, when
   * {@code deletedLater} is given, that it does delete.
   */
  private void read(FileScanTask task, PositionDeleteIndex live, PositionDeleteIndex deletedLater,
      List<Map<String, Object>> sink) {
    String path = task.file().location();
    ReadBuilder<Record, Object> builder = FormatModelRegistry.readBuilder(task.file().format(),
        Record.class, table.io().newInputFile(path));
    builder.project(projection);
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    if (!constants.isEmpty()) {
      builder.idToConstant(constants);
    }
    try (CloseableIterable<Record> records = builder.build()) {
      for (Record record : records) {
        long position = (Long) record.getField(MetadataColumns.ROW_POSITION.name());
        if (live.isDeleted(position) || (deletedLater != null && !deletedLater.isDeleted(position))) {
          continue;
        }
        Map<String, Object> row = RowJson.row(record);
        row.remove(MetadataColumns.ROW_POSITION.name());
        sink.add(row);
        if (removed.size() + added.size() > maxRows) {
          throw QueryException.overLimit("Cannot compute the delta of " + table.name() + " from "
              + (from == null ? "the empty table" : from.snapshotId()) + " to " + to.snapshotId()
              + ": more than " + maxRows + " rows changed; ask for a shorter range of snapshots");
        }
        if (++rowsRead % DEADLINE_CHECK_ROWS == 0) {
          reads.checkDeadline();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read data file " + path + ": " + e.getMessage(), e);
    }
  }

  private PositionDeleteIndex deletes(FileScanTask task) {
    return task.deletes().isEmpty() ? PositionDeleteIndex.empty()
        : loader.loadPositionDeletes(task.deletes(), task.file().location());
  }

  private static List<String> deletePaths(FileScanTask task) {
    return task.deletes().stream().map(DeleteFile::location).sorted().toList();
  }

  /** The snapshot's data files by path, each with its delete files. */
  private Map<String, FileScanTask> plan(Snapshot snapshot) {
    Map<String, FileScanTask> tasks = new HashMap<>();
    try (CloseableIterable<FileScanTask> planned =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : planned) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.EQUALITY_DELETES) {
            throw QueryException.overLimit("Cannot compute the delta of " + table.name()
                + ": snapshot " + snapshot.snapshotId() + " has equality deletes, which cannot be"
                + " placed by position");
          }
        }
        tasks.put(task.file().location(), task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan " + table.name() + " at "
          + snapshot.snapshotId() + ": " + e.getMessage(), e);
    }
    return tasks;
  }
}
