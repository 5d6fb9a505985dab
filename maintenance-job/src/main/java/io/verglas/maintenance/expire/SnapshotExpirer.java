package io.verglas.maintenance.expire;

import io.verglas.events.TableMaintainedEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.table.VerglasTableProperties;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>An expiry that expired something is announced with an {@code expire-snapshots} event
 * naming the expired snapshots and counting the deleted files. To count them, Iceberg's cleanup
 * only records the files it would delete; they are deleted here after the commit, in bulk when
 * the FileIO can, and as in Iceberg a failed delete is logged (the file becomes an orphan).
 */
public final class SnapshotExpirer {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpirer.class);

  private final Clock clock;
  private final MaintenanceEvents events;

  public SnapshotExpirer(Clock clock, MaintenanceEvents events) {
    this.clock = clock;
    this.events = events;
  }

  public ExpiryResult expire(TableIdentifier name, Table table, MaintenancePolicy policy) {
    table.refresh();
    Set<Long> before = snapshotIds(table);
    if (table.currentSnapshot() == null) {
      return new ExpiryResult(0, before.size(), -1);
    }
    int protectedDepth = depthOfLastWalCommit(table);
    int keep = Math.max(policy.snapshotMinCount(), protectedDepth + 1);
    long olderThan = clock.millis() - policy.snapshotMaxAge().toMillis();
    Queue<String> unreachable = new ConcurrentLinkedQueue<>(); // cleanup may use threads
    table.expireSnapshots().expireOlderThan(olderThan).retainLast(keep).cleanExpiredFiles(true)
        .deleteWith(unreachable::add).commit();
    table.refresh();
    List<String> deleted = new ArrayList<>(unreachable);
    delete(table, deleted);
    Set<Long> remaining = snapshotIds(table);
    Set<Long> expired = new TreeSet<>(before);
    expired.removeAll(remaining);
    if (!expired.isEmpty()) {
      events.maintained(name, table, TableMaintainedEvent.EXPIRE_SNAPSHOTS,
          List.copyOf(expired), deleted);
    }
    long protectedId = protectedDepth < 0 ? -1 : ancestorAt(table, protectedDepth);
    return new ExpiryResult(expired.size(), remaining.size(), protectedId);
  }

  private static void delete(Table table, List<String> files) {
    try {
      if (table.io() instanceof SupportsBulkOperations bulk) {
        bulk.deleteFiles(files);
      } else {
        files.forEach(table.io()::deleteFile);
      }
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete some of the {} files expiry left unreachable in {}: {}",
          files.size(), table.name(), e.toString());
    }
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

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new TreeSet<>();
    table.snapshots().forEach(snapshot -> ids.add(snapshot.snapshotId()));
    return ids;
  }
}
