package io.verglas.wal;

import java.util.List;

/** A decoded, checksum-verified WAL segment. */
public record WalSegment(WalSegmentHeader header, List<WalBatch> batches) {
  public WalSegment {
    batches = List.copyOf(batches);
  }

  public WalPosition position(int batch, int row) {
    return new WalPosition(
        batches.get(batch).hlc(), header.streamId(), header.sequence(), batch, row);
  }
}
