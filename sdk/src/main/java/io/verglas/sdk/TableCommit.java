package io.verglas.sdk;

import java.time.Instant;
import java.util.Map;

/**
 * One commit of a table as the change feed reports it.
 *
 * @param position the event's place in the change feed; a follower resumes after it with
 *     {@link #nextPosition()}
 * @param parentSnapshotId null for the table's first snapshot
 * @param operation Iceberg's: append, overwrite, delete, replace (a compaction)
 */
public record TableCommit(long position, long snapshotId, Long parentSnapshotId,
    long sequenceNumber, String operation, Instant time, Map<String, String> summary) {

  public TableCommit {
    summary = Map.copyOf(summary);
  }

  /** Where a follower that has handled this commit resumes. */
  public long nextPosition() {
    return position + 1;
  }
}
