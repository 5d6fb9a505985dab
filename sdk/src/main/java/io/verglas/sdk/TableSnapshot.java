package io.verglas.sdk;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.protocol.PutAck;
import io.verglas.table.VerglasTableProperties;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * One snapshot of a table as the cache node reads it: its id, its sequence number, its parent
 * (null for the first), when it was committed, the Iceberg operation and the snapshot summary.
 * The materializer's summary carries {@code verglas.wal.<stream> = N}: every row pushed to the
 * table through that ingest stream in WAL segments up to N is in this snapshot.
 */
public record TableSnapshot(long snapshotId, long sequenceNumber, Long parentId,
    long timestampMillis, String operation, Map<String, String> summary) {

  private static final ObjectMapper JSON = new ObjectMapper();

  public TableSnapshot {
    summary = Map.copyOf(summary);
  }

  /**
   * The idempotency keys of the batches this snapshot's commit made durable, as far as the
   * summary lists them (a long list is cut; {@code verglas.idempotency-key-count} counts all).
   */
  public List<String> idempotencyKeys() {
    String keys = summary.get(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEYS);
    if (keys == null) {
      return List.of();
    }
    try {
      return JSON.readValue(keys, new TypeReference<List<String>>() {});
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read the idempotency keys of snapshot " + snapshotId
          + ": " + keys, e);
    }
  }

  /** Whether the summary carries WAL marks (snapshots of compactions or other writers do not). */
  boolean hasWalMarks() {
    return summary.keySet().stream()
        .anyMatch(key -> key.startsWith(VerglasTableProperties.SUMMARY_WAL_PREFIX));
  }

  /**
   * Whether the rows of {@code ack} are committed in this snapshot: its segment is complete in
   * the WAL mark of its stream (a segment may be committed in parts; the ack does not say which
   * rows of it are its own, so only the complete segment counts), or this snapshot's commit
   * names the batch's key.
   */
  boolean covers(PutAck ack, String key) {
    return covers(ack) || (summary.containsKey(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEYS)
        && idempotencyKeys().contains(key));
  }

  private boolean covers(PutAck ack) {
    String mark = summary.get(VerglasTableProperties.SUMMARY_WAL_PREFIX + ack.stream());
    try {
      return mark != null && Long.parseLong(mark) >= ack.sequence();
    } catch (NumberFormatException e) {
      throw new IllegalStateException("Cannot read WAL mark of snapshot " + snapshotId + ": "
          + VerglasTableProperties.SUMMARY_WAL_PREFIX + ack.stream() + "=" + mark, e);
    }
  }
}
