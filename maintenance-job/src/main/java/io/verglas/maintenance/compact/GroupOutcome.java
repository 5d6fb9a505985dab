package io.verglas.maintenance.compact;

/**
 * What became of one rewrite group: committed (with its snapshot id), or abandoned whole because
 * a concurrent commit invalidated it (its new files deleted, the table untouched).
 */
public record GroupOutcome(boolean committed, long snapshotId, int filesRewritten,
    int filesAdded, int deleteFilesRemoved, long bytesRead, long bytesWritten, String conflict) {

  static GroupOutcome committed(long snapshotId, int rewritten, int added, int deletes,
      long read, long written) {
    return new GroupOutcome(true, snapshotId, rewritten, added, deletes, read, written, null);
  }

  static GroupOutcome abandoned(int rewritten, long read, String conflict) {
    return new GroupOutcome(false, -1, rewritten, 0, 0, read, 0, conflict);
  }
}
