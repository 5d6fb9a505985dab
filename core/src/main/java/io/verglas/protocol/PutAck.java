package io.verglas.protocol;

import io.verglas.wal.WalPosition;
import java.util.Objects;

/**
 * The acknowledgement of one {@code DoPut} batch: where it sits in the write-ahead log. It is
 * sent only after the segment holding the batch was durably written, so an acknowledged batch
 * is never lost.
 *
 * @param stream the WAL stream of the ingest process that wrote it
 * @param sequence the segment's sequence number within the stream
 * @param batch the batch's index within the segment
 * @param hlc the hybrid-logical-clock stamp that orders the batch for last-writer-wins
 * @param rows the number of rows in the batch
 */
public record PutAck(String stream, long sequence, int batch, long hlc, int rows) {
  public PutAck {
    Objects.requireNonNull(stream, "stream");
  }

  /** The WAL position of one row of this batch. */
  public WalPosition position(int row) {
    if (row < 0 || row >= rows) {
      throw new IndexOutOfBoundsException("Invalid row " + row + " for a batch of " + rows);
    }
    return new WalPosition(hlc, stream, sequence, batch, row);
  }
}
