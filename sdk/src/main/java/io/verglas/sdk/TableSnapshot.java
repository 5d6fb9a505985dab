package io.verglas.sdk;

import io.verglas.protocol.PutAck;
import io.verglas.table.VerglasTableProperties;
import java.util.Map;

/**
 * One snapshot of a table as the cache node reads it: its id, its sequence number, its parent
 * (null for the first), when it was committed, the Iceberg operation and the snapshot summary.
 * The materializer's summary carries {@code verglas.wal.<stream> = N}: every row pushed to the
 * table through that ingest stream in WAL segments up to N is in this snapshot.
 */
public record TableSnapshot(long snapshotId, long sequenceNumber, Long parentId,
    long timestampMillis, String operation, Map<String, String> summary) {

  public TableSnapshot {
    summary = Map.copyOf(summary);
  }

  /** Whether the summary carries WAL marks (snapshots of compactions or other writers do not). */
  boolean hasWalMarks() {
    return summary.keySet().stream()
        .anyMatch(key -> key.startsWith(VerglasTableProperties.SUMMARY_WAL_PREFIX));
  }

  /**
   * Whether the rows of {@code ack} are committed in this snapshot: its segment is complete in
   * the WAL mark of its stream (a segment may be committed in parts; the ack does not say which
   * rows of it are its own, so only the complete segment counts).
   */
  boolean covers(PutAck ack) {
    String mark = summary.get(VerglasTableProperties.SUMMARY_WAL_PREFIX + ack.stream());
    try {
      return mark != null && Long.parseLong(mark) >= ack.sequence();
    } catch (NumberFormatException e) {
      throw new IllegalStateException("Cannot read WAL mark of snapshot " + snapshotId + ": "
          + VerglasTableProperties.SUMMARY_WAL_PREFIX + ack.stream() + "=" + mark, e);
    }
  }
}
