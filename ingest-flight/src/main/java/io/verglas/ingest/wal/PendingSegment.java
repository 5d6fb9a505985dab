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
  private final List<Long> appendedNanos = new ArrayList<>();
  private long bytes;
  private long charged;
  private long rows;
  private boolean keyed;
  private long sealedNanos;

  PendingSegment(SegmentTarget target, long openedNanos) {
    this.target = target;
    this.openedNanos = openedNanos;
  }

  CompletableFuture<PutAck> add(WalBatch batch, long charge, long nowNanos) {
    CompletableFuture<PutAck> future = new CompletableFuture<>();
    batches.add(batch);
    futures.add(future);
    appendedNanos.add(nowNanos);
    bytes += batch.arrowIpc().length;
    charged += charge;
    rows += batch.rowCount();
    keyed |= batch.idempotencyKey() != null;
    return future;
  }

  SegmentTarget target() {
    return target;
  }

  /** When the first batch arrived: the flush interval counts from here. */
  long openedNanos() {
    return openedNanos;
  }

  void sealed(long nowNanos) {
    sealedNanos = nowNanos;
  }

  /** When the segment was closed to new batches: flush latency counts from here. */
  long sealedNanos() {
    return sealedNanos;
  }

  List<WalBatch> batches() {
    return batches;
  }

  List<CompletableFuture<PutAck>> futures() {
    return futures;
  }

  long appendedNanos(int batch) {
    return appendedNanos.get(batch);
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

  /** Whether any batch carries an idempotency key (then the segment gets a key journal). */
  boolean keyed() {
    return keyed;
  }

  long hlcMin() {
    return batches.get(0).hlc();
  }

  long hlcMax() {
    return batches.get(batches.size() - 1).hlc();
  }
}
