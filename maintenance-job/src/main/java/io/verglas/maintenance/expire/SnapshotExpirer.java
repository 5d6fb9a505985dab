package io.verglas.maintenance.expire;

import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.table.VerglasTableProperties;
import java.time.Clock;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Expires snapshots older than the policy's age beyond the newest {@code snapshot-min-count}
 * of the main lineage, and deletes the files only they reached (Iceberg's core {@link
 * ExpireSnapshots}, which keeps every snapshot a branch or tag refers to: a reader pins a
 * snapshot by tagging it).
 *
 * <p>Design: the materializer finds its committed WAL positions by walking back from the current
 * snapshot to the newest one carrying {@code verglas.wal.*} summary keys; compactions after it
 * do not carry them. That snapshot is therefore protected: the number of ancestors kept is
 * raised to reach it. Without this, an idle table compacted twice could lose its WAL marks and
 * have its WAL replayed.
 */
public final class SnapshotExpirer {
  private final Clock clock;

  public SnapshotExpirer(Clock clock) {
    this.clock = clock;
  }

  public ExpiryResult expire(Table table, MaintenancePolicy policy) {
    table.refresh();
    int before = size(table.snapshots());
    if (table.currentSnapshot() == null) {
      return new ExpiryResult(0, before, -1);
    }
    int protectedDepth = depthOfLastWalCommit(table);
    int keep = Math.max(policy.snapshotMinCount(), protectedDepth + 1);
    long olderThan = clock.millis() - policy.snapshotMaxAge().toMillis();
    table.expireSnapshots().expireOlderThan(olderThan).retainLast(keep).cleanExpiredFiles(true)
        .commit();
    table.refresh();
    long protectedId = protectedDepth < 0 ? -1 : ancestorAt(table, protectedDepth);
    return new ExpiryResult(before - size(table.snapshots()), size(table.snapshots()),
        protectedId);
  }

  /**
   * How many steps back from the current snapshot the newest one with WAL marks is (0: the
   * current one), or -1 when the lineage has none (a table nobody materializes).
   */
  static int depthOfLastWalCommit(Table table) {
    int depth = 0;
    Snapshot snapshot = table.currentSnapshot();
    while (snapshot != null) {
      for (String key : snapshot.summary().keySet()) {
        if (key.startsWith(VerglasTableProperties.SUMMARY_WAL_PREFIX)) {
          return depth;
        }
      }
      depth++;
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return -1;
  }

  private static long ancestorAt(Table table, int depth) {
    Snapshot snapshot = table.currentSnapshot();
    for (int i = 0; i < depth; i++) {
      snapshot = table.snapshot(snapshot.parentId());
    }
    return snapshot.snapshotId();
  }

  private static int size(Iterable<Snapshot> snapshots) {
    int n = 0;
    for (Snapshot ignored : snapshots) {
      n++;
    }
    return n;
  }
}
