package io.verglas.sdk;

import java.util.List;
import java.util.Map;

/**
 * The rows that changed between two snapshots of a table (the query node's {@code delta} kind):
 * rows inserted, rows updated (their primary key in both snapshots, other values changed) and
 * rows deleted. Rows are maps of column name to JSON value (numbers, strings, booleans; dates,
 * times and UUIDs as ISO strings; binary as base64).
 *
 * @param fromSnapshotId the older snapshot, null for the empty table before the first commit
 * @param toSnapshotId the newer snapshot
 */
public record TableDelta(Long fromSnapshotId, long toSnapshotId,
    List<Map<String, Object>> inserted, List<Update> updated, List<Map<String, Object>> deleted) {

  public TableDelta {
    inserted = List.copyOf(inserted);
    updated = List.copyOf(updated);
    deleted = List.copyOf(deleted);
  }

  /** A delta with no rows (e.g. of a compaction, which moves rows without changing them). */
  public static TableDelta empty(Long fromSnapshotId, long toSnapshotId) {
    return new TableDelta(fromSnapshotId, toSnapshotId, List.of(), List.of(), List.of());
  }

  public boolean isEmpty() {
    return inserted.isEmpty() && updated.isEmpty() && deleted.isEmpty();
  }

  /** One updated row: its values in the older and in the newer snapshot. */
  public record Update(Map<String, Object> before, Map<String, Object> after) {}
}
