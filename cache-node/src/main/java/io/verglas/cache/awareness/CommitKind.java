package io.verglas.cache.awareness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;

/**
 * What a commit did to a table, from its snapshot's operation: an append adds data, an
 * overwrite changes contents, a delete removes them, and a replace (a compaction: ours, or any
 * engine's rewrite) keeps the contents under new files, which is when heat must move to them.
 */
enum CommitKind {
  APPEND, OVERWRITE, DELETE, REPLACE, OTHER;

  /** Snapshots a walk looks back through to classify the commits since the previous walk. */
  static final int MAX_LOOKBACK = 1000;

  static CommitKind of(String operation) {
    if (operation == null) {
      return OTHER;
    }
    return switch (operation.toLowerCase(Locale.ROOT)) {
      case "append" -> APPEND;
      case "overwrite" -> OVERWRITE;
      case "delete" -> DELETE;
      case "replace" -> REPLACE;
      default -> OTHER;
    };
  }

  /**
   * The kinds of the commits after {@code previousSnapshotId} up to the current snapshot,
   * oldest first, following parents (walks coalesce, so one walk may cover several commits);
   * empty when there is no current snapshot or it is the previous one. If the previous snapshot
   * is not an ancestor (a rollback, or expired history) the chain is followed as far as the
   * metadata keeps it, at most {@value #MAX_LOOKBACK} snapshots.
   */
  static List<CommitKind> since(TableMetadata metadata, long previousSnapshotId) {
    List<CommitKind> kinds = new ArrayList<>();
    Snapshot snapshot = metadata.currentSnapshot();
    while (snapshot != null && snapshot.snapshotId() != previousSnapshotId && kinds.size() < MAX_LOOKBACK) {
      kinds.add(of(snapshot.operation()));
      snapshot = snapshot.parentId() == null ? null : metadata.snapshot(snapshot.parentId());
    }
    Collections.reverse(kinds);
    return kinds;
  }
}
