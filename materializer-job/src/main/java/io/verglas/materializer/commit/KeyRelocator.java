package io.verglas.materializer.commit;

import io.verglas.materializer.delta.DeletedRows;
import io.verglas.materializer.delta.KeyRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds where rows went after their data file was rewritten.
 *
 * <p>A delete names (data file, position, primary key). When the data file is no longer live in
 * the snapshot a commit starts from, another writer replaced it (a compaction, which preserves
 * row contents); the row now lives at another (file, position). (Our commits also remove files,
 * but only those whose every row they deleted: the key index then points at none of their rows,
 * in the same checkpoint's state, so no later delete names such a file.) The table holds at
 * most one live row per primary key outside the delta being committed (every earlier version
 * was deleted when its successor was committed), so the row to delete is the live row with that
 * key. The look-up reads only the key columns, and only of files that can hold it:
 * <ol>
 *   <li>files added since the oldest snapshot that removed one of the stale files (found in the
 *       lineage by {@link RemovalHistory}; when that history has expired, all live files);
 *   <li>files whose column bounds admit the keys ({@code in} filter on each key column), and
 *       within them only row groups that do.
 * </ol>
 * Rows already deleted by the files' own deletes are skipped. A key with no live row is
 * reported and skipped (someone else deleted it: nothing to do); a key with several (only a
 * foreign writer could cause that) has all of them deleted, which is what last-writer-wins asks.
 */
final class KeyRelocator {
  private static final Logger LOG = LoggerFactory.getLogger(KeyRelocator.class);
  /** Beyond this many keys the {@code in} filter is dropped (candidates are read whole). */
  static final int MAX_FILTER_KEYS = 10_000;

  /** The relocated deletes (path → rows), and how the look-up went. */
  record Relocation(Map<String, DeletedRows> deletes, int wanted, int found, int missing) {}

  private KeyRelocator() {}

  static Relocation relocate(Table table, String tableName, Snapshot base,
      Map<String, DeletedRows> stale) {
    KeyScanner scanner = new KeyScanner(table, tableName);
    Schema schema = scanner.schema();
    Map<ByteBuffer, byte[]> wanted = new LinkedHashMap<>();
    List<Record> keys = new ArrayList<>();
    for (Map.Entry<String, DeletedRows> entry : stale.entrySet()) {
      for (byte[] payload : payloads(scanner, tableName, entry.getKey(), entry.getValue())) {
        Record key = KeyRows.decode(payload, schema);
        if (wanted.put(KeyRows.identity(key, schema, scanner.keyFieldIds()), payload) == null) {
          keys.add(key);
        }
      }
    }
    Map<String, DeletedRows.Builder> found = new TreeMap<>();
    Map<ByteBuffer, Integer> hits = new HashMap<>();
    if (base != null) {
      OptionalLong since = RemovalHistory.earliestRemoval(table, base, stale.keySet());
      Expression filter = filter(schema, scanner.keyFieldIds(), keys);
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(base.snapshotId()).filter(filter).planFiles()) {
        for (FileScanTask task : tasks) {
          Long added = task.file().fileSequenceNumber();
          if (since.isPresent() && added != null && added < since.getAsLong()) {
            continue;
          }
          String path = task.file().location();
          scanner.scanLive(task, filter, (identity, position) -> {
            byte[] payload = wanted.get(identity);
            if (payload != null) {
              found.computeIfAbsent(path, p -> DeletedRows.builder()).add(position, payload);
              hits.merge(identity, 1, Integer::sum);
            }
          });
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot plan the key look-up in table " + tableName, e);
      }
    }
    int missing = wanted.size() - hits.size();
    if (missing > 0) {
      LOG.warn("Table {}: {} of {} rows to delete from rewritten files have no live row any more"
          + " (deleted by another writer?); nothing to delete for them", tableName, missing,
          wanted.size());
    }
    long duplicated = hits.values().stream().filter(count -> count > 1).count();
    if (duplicated > 0) {
      LOG.warn("Table {}: {} keys have more than one live row; deleting all of them", tableName,
          duplicated);
    }
    Map<String, DeletedRows> deletes = new TreeMap<>();
    found.forEach((path, rows) -> deletes.put(path, rows.build()));
    return new Relocation(deletes, wanted.size(), hits.size(), missing);
  }

  /** The key payloads of the rows; unknown keys (version 1 deltas) are read from the old file. */
  private static List<byte[]> payloads(KeyScanner scanner, String tableName, String path,
      DeletedRows rows) {
    List<byte[]> payloads = new ArrayList<>(rows.size());
    Map<Long, byte[]> fromFile = null;
    for (int i = 0; i < rows.size(); i++) {
      byte[] payload = rows.key(i);
      if (payload == null) {
        if (fromFile == null) {
          fromFile = readKeys(scanner, tableName, path, rows);
        }
        payload = fromFile.get(rows.position(i));
        if (payload == null) {
          throw new IllegalStateException("Cannot re-resolve the delete of row "
              + rows.position(i) + " of " + path + " in table " + tableName
              + ": the file has no such row");
        }
      }
      payloads.add(payload);
    }
    return payloads;
  }

  private static Map<Long, byte[]> readKeys(KeyScanner scanner, String tableName, String path,
      DeletedRows rows) {
    try {
      return scanner.keysAt(path, rows.positions());
    } catch (RuntimeException e) {
      throw new IllegalStateException("Cannot re-resolve deletes in " + path + " of table "
          + tableName + ": the file was rewritten, the delta carries no keys (written by an"
          + " older version) and the old file cannot be read: " + e.getMessage(), e);
    }
  }

  /** {@code in} on every key column whose values Iceberg expressions take as they are. */
  static Expression filter(Schema schema, List<Integer> keyFieldIds, List<Record> keys) {
    if (keys.isEmpty() || keys.size() > MAX_FILTER_KEYS) {
      return Expressions.alwaysTrue();
    }
    Expression filter = Expressions.alwaysTrue();
    for (int fieldId : keyFieldIds) {
      Types.NestedField field = schema.findField(fieldId);
      switch (field.type().typeId()) {
        case INTEGER: case LONG: case STRING:
          List<Object> values = new ArrayList<>(keys.size());
          for (Record key : keys) {
            Object value = key.getField(field.name());
            values.add(value instanceof CharSequence text ? text.toString() : value);
          }
          filter = Expressions.and(filter, Expressions.in(field.name(), values));
          break;
        default:
          break; // matched exactly after reading; no pruning on this column
      }
    }
    return filter;
  }
}
