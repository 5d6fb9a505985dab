package io.verglas.wal;

import java.util.List;
import java.util.Objects;

/**
 * What a segment says about itself. One segment holds batches of exactly one table, written by
 * one stream; {@code sequence} orders the segments of a stream.
 */
public record WalSegmentHeader(
    String tableUuid,
    List<String> tableName,
    int schemaId,
    String streamId,
    long sequence,
    long recordCount,
    long hlcMin,
    long hlcMax,
    long createdAtMillis) {

  public WalSegmentHeader {
    Objects.requireNonNull(tableUuid, "tableUuid");
    Objects.requireNonNull(streamId, "streamId");
    tableName = List.copyOf(tableName);
    if (tableName.isEmpty()) {
      throw new IllegalArgumentException("Invalid table name: empty");
    }
    if (sequence < 0) {
      throw new IllegalArgumentException("Invalid sequence: " + sequence);
    }
  }
}
