package io.verglas.wal;

import java.util.Comparator;
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

  private static final Comparator<WalPosition> ORDER =
      Comparator.comparingLong(WalPosition::hlc)
          .thenComparing(WalPosition::streamId)
          .thenComparingLong(WalPosition::sequence)
          .thenComparingInt(WalPosition::batch)
          .thenComparingInt(WalPosition::row);

  public WalPosition {
    Objects.requireNonNull(streamId, "streamId");
  }

  @Override
  public int compareTo(WalPosition other) {
    return ORDER.compare(this, other);
  }
}
