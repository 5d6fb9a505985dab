package io.verglas.maintenance.status;

import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.plan.CompactionPlan;
import io.verglas.maintenance.plan.FileState;
import io.verglas.maintenance.plan.SnapshotFiles;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.maintenance.policy.MaintenancePolicyParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * A table's maintenance state, computed from the table itself (nothing is stored elsewhere): the
 * last maintenance commit, the work the planner would do now, and the file layout.
 *
 * @param lastMaintenanceSnapshotId the newest maintenance commit in the current lineage, or -1
 * @param lastMaintenanceMillis its commit time, or -1
 * @param pendingGroups rewrite groups the planner finds now (0: within policy)
 * @param pendingFiles data files those groups would rewrite
 * @param pendingBytes their bytes
 * @param dataFiles live data files
 * @param dataBytes their bytes
 * @param smallFiles data files below the policy's minimum size
 * @param deleteFiles delete files applying to live data files
 * @param snapshots snapshots the table holds
 */
public record MaintenanceStatus(long lastMaintenanceSnapshotId, long lastMaintenanceMillis,
    int pendingGroups, int pendingFiles, long pendingBytes, int dataFiles, long dataBytes,
    int smallFiles, int deleteFiles, int snapshots, MaintenancePolicy policy) {

  public static MaintenanceStatus of(Table table) {
    table.refresh();
    MaintenancePolicy policy = MaintenancePolicyParser.fromProperties(table.properties());
    SnapshotFiles files = SnapshotFiles.current(table);
    CompactionPlan plan = Compactor.plan(files, policy);
    Snapshot last = lastMaintenance(table);
    long bytes = 0;
    int small = 0;
    int deletes = 0;
    for (FileState file : files.states()) {
      bytes += file.sizeBytes();
      small += file.sizeBytes() < policy.minFileSizeBytes() ? 1 : 0;
      deletes += file.deleteFiles();
    }
    return new MaintenanceStatus(last == null ? -1 : last.snapshotId(),
        last == null ? -1 : last.timestampMillis(), plan.groups().size(), plan.inputFiles(),
        plan.inputBytes(), files.states().size(), bytes, small, deletes, snapshotCount(table),
        policy);
  }

  /** The newest maintenance commit in the current lineage, or null. */
  public static Snapshot lastMaintenance(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    while (snapshot != null && !snapshot.summary().containsKey(Compactor.SUMMARY_KIND)) {
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return snapshot;
  }

  public static int snapshotCount(Table table) {
    int count = 0;
    for (Snapshot ignored : table.snapshots()) {
      count++;
    }
    return count;
  }
}
