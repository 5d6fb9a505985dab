package io.verglas.wal;

import java.util.Objects;

/**
 * The place of one row in the write-ahead log, and the total order used for last-writer-wins.
 *
 * <p>Rows are ordered by their batch's hybrid-logical-clock stamp first. Equal stamps (two
 * ingest processes acknowledging in the same clock tick) are broken by stream id, then by
 * segment sequence, batch index and row index, so every process that sees the same rows picks
 * the same winner, and a later row of the same batch beats an earlier one.
 */
public record WalPosition(long hlc, String streamId, long sequence, int batch, int row)
    implements Comparable<WalPosition> {

  public WalPosition {
    Objects.requireNonNull(streamId, "streamId");
  }

  @Override
  public int compareTo(WalPosition other) {
    return compare(hlc, streamId, sequence, batch, row,
        other.hlc, other.streamId, other.sequence, other.batch, other.row);
  }

  /**
   * The order itself, on the fields of two positions: for holders of those fields that compare
   * often and should not create a position for each comparison (the materializer's buffered rows).
   */
  public static int compare(long hlc, String streamId, long sequence, int batch, int row,
      long otherHlc, String otherStreamId, long otherSequence, int otherBatch, int otherRow) {
    int c = Long.compare(hlc, otherHlc);
    if (c == 0) {
      c = streamId.compareTo(otherStreamId);
    }
    if (c == 0) {
      c = Long.compare(sequence, otherSequence);
    }
    if (c == 0) {
      c = Integer.compare(batch, otherBatch);
    }
    return c != 0 ? c : Integer.compare(row, otherRow);
  }
}
