package io.verglas.materializer.commit;

import io.verglas.table.VerglasTableProperties;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * When data files left a table: walks the lineage of a snapshot back and reads the removed-file
 * entries of the snapshots that removed data files (compactions and other rewrites, and our
 * commits that removed files they emptied; appends and our other row deltas are recognised from
 * their summaries and skipped without I/O).
 */
final class RemovalHistory {
  private RemovalHistory() {}

  /**
   * The sequence number of the oldest snapshot in {@code base}'s lineage that removed one of
   * {@code paths}, once all are found; empty when some were not found (their removal is older
   * than the retained history: snapshots expired).
   */
  static OptionalLong earliestRemoval(Table table, Snapshot base, Set<String> paths) {
    Set<String> remaining = new HashSet<>(paths);
    long earliest = Long.MAX_VALUE;
    if (base == null) {
      return OptionalLong.empty();
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(base.snapshotId(), table::snapshot)) {
      if (remaining.isEmpty()) {
        break;
      }
      if (!mayRemoveDataFiles(snapshot)) {
        continue;
      }
      SnapshotChanges changes = SnapshotChanges.builderFor(table).snapshot(snapshot).build();
      for (DataFile file : changes.removedDataFiles()) {
        if (remaining.remove(file.location())) {
          earliest = Math.min(earliest, snapshot.sequenceNumber());
        }
      }
    }
    return remaining.isEmpty() ? OptionalLong.of(earliest) : OptionalLong.empty();
  }

  static boolean mayRemoveDataFiles(Snapshot snapshot) {
    if (DataOperations.APPEND.equals(snapshot.operation())) {
      return false;
    }
    String deleted = snapshot.summary().get(SnapshotSummary.DELETED_FILES_PROP);
    if (deleted != null) {
      return !"0".equals(deleted.trim());
    }
    // Iceberg's producers record the count whenever it is not zero (ours too, when a commit
    // removes files it emptied); any other writer without the count is read to be sure.
    return !snapshot.summary().containsKey(VerglasTableProperties.SUMMARY_JOB_ID);
  }
}
