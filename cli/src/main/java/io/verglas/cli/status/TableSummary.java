package io.verglas.cli.status;

import io.verglas.maintenance.status.MaintenanceStatus;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What the status page shows of one table, from its current snapshot's summary (no manifest is
 * read): freshness, size and the deletion vectors waiting for compaction.
 *
 * @param table the table's name in the {@code TableIdentifiers} form
 * @param snapshotId the current snapshot, -1 when the table has none
 * @param lastCommitMillis when it was committed, -1 when there is none
 * @param operation its operation (append, overwrite, delete, replace), null when there is none
 * @param rows live rows before deletes ({@code total-records})
 * @param dataFiles {@code total-data-files}
 * @param deleteFiles {@code total-delete-files} (deletion vectors and delete files)
 * @param deletedRows {@code total-position-deletes} plus {@code total-equality-deletes}
 * @param lastMaintenanceMillis the last maintenance commit's time, -1 when there was none
 */
public record TableSummary(String table, long snapshotId, long lastCommitMillis, String operation,
    long rows, long dataFiles, long deleteFiles, long deletedRows, long lastMaintenanceMillis) {

  public static TableSummary of(String name, Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new TableSummary(name, -1, -1, null, 0, 0, 0, 0, -1);
    }
    Map<String, String> summary = current.summary();
    return new TableSummary(name, current.snapshotId(), current.timestampMillis(),
        current.operation(), count(summary, "total-records"), count(summary, "total-data-files"),
        count(summary, "total-delete-files"),
        count(summary, "total-position-deletes") + count(summary, "total-equality-deletes"),
        lastMaintenanceMillis(table));
  }

  /** The newest maintenance commit of the current lineage (walks the lineage's metadata only). */
  private static long lastMaintenanceMillis(Table table) {
    Snapshot last = MaintenanceStatus.lastMaintenance(table);
    return last == null ? -1 : last.timestampMillis();
  }

  private static long count(Map<String, String> summary, String key) {
    String value = summary.get(key);
    return value == null ? 0 : Long.parseLong(value);
  }
}
