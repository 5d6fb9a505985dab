package io.verglas.wal;

import java.util.Objects;

/**
 * One acknowledged client batch inside a segment: its clock stamp, its row count, the client's
 * idempotency key (or null) and its rows as an Arrow IPC stream (buffers compressed with zstd,
 * or in version-2 segments with the codec the client chose: zstd, lz4_frame or none) in the
 * column layout the client sent, already validated against the table schema.
 */
public record WalBatch(long hlc, int rowCount, String idempotencyKey, byte[] arrowIpc) {
  public WalBatch {
    Objects.requireNonNull(arrowIpc, "arrowIpc");
    if (rowCount < 0) {
      throw new IllegalArgumentException("Invalid row count: " + rowCount);
    }
  }
}
