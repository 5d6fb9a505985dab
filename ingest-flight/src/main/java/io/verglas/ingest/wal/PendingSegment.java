package io.verglas.ingest.wal;

import io.verglas.protocol.PutAck;
import io.verglas.wal.WalBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The batches of one table gathered for the next segment, with their callers' futures. */
final class PendingSegment {
  private final SegmentTarget target;
  private final long openedNanos;
  private final List<WalBatch> batches = new ArrayList<>();
  private final List<CompletableFuture<PutAck>> futures = new ArrayList<>();
  private long bytes;
  private long charged;
  private long rows;

  PendingSegment(SegmentTarget target, long openedNanos) {
    this.target = target;
    this.openedNanos = openedNanos;
  }

  CompletableFuture<PutAck> add(WalBatch batch, long charge) {
    CompletableFuture<PutAck> future = new CompletableFuture<>();
    batches.add(batch);
    futures.add(future);
    bytes += batch.arrowIpc().length;
    charged += charge;
    rows += batch.rowCount();
    return future;
  }

  SegmentTarget target() {
    return target;
  }

  /** When the first batch arrived: the flush interval counts from here. */
  long openedNanos() {
    return openedNanos;
  }

  List<WalBatch> batches() {
    return batches;
  }

  List<CompletableFuture<PutAck>> futures() {
    return futures;
  }

  long bytes() {
    return bytes;
  }

  /** What the batches charged to the byte budget; released once the segment is done. */
  long charged() {
    return charged;
  }

  long rows() {
    return rows;
  }

  long hlcMin() {
    return batches.get(0).hlc();
  }

  long hlcMax() {
    return batches.get(batches.size() - 1).hlc();
  }

  void fail(Throwable error) {
    for (CompletableFuture<PutAck> future : futures) {
      future.completeExceptionally(error);
    }
  }
}
