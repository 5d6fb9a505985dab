package io.verglas.ingest.metrics;

import io.verglas.ingest.validation.RejectReason;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What one ingest server counts: batches, rows and bytes accepted and acknowledged, rejects by
 * reason, segments and WAL bytes written, PUT retries and failures, duplicates absorbed by
 * idempotency keys, the latency of segment flushes and of batch acknowledgements, and the
 * DoPut calls in progress.
 *
 * <p>Thread-safe and cheap to update (adders); {@link #snapshot()} reads a consistent-enough
 * copy for exposition ({@link PrometheusText}) and the health action.
 */
public final class IngestMetrics {
  private final LongAdder batchesAccepted = new LongAdder();
  private final LongAdder rowsAccepted = new LongAdder();
  private final LongAdder bytesAccepted = new LongAdder();
  private final LongAdder batchesAcknowledged = new LongAdder();
  private final LongAdder rowsAcknowledged = new LongAdder();
  private final LongAdder batchesFailed = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder segments = new LongAdder();
  private final LongAdder walBytes = new LongAdder();
  private final LongAdder putRetries = new LongAdder();
  private final LongAdder putFailures = new LongAdder();
  private final Map<RejectReason, LongAdder> rejects = new EnumMap<>(RejectReason.class);
  private final LatencyHistogram flushLatency = new LatencyHistogram();
  private final LatencyHistogram ackLatency = new LatencyHistogram();
  private volatile LongSupplier bufferedBytes = () -> 0;
  private volatile LongSupplier putsInProgress = () -> 0;

  public IngestMetrics() {
    for (RejectReason reason : RejectReason.values()) {
      rejects.put(reason, new LongAdder());
    }
  }

  /** A batch passed validation and was handed to the WAL writer. */
  public void batchAccepted(int rows, long arrowBytes) {
    batchesAccepted.increment();
    rowsAccepted.add(rows);
    bytesAccepted.add(arrowBytes);
  }

  /** A batch's segment is durable and its ack was released; {@code nanos} since it was appended. */
  public void batchAcknowledged(int rows, long nanos) {
    batchesAcknowledged.increment();
    rowsAcknowledged.add(rows);
    ackLatency.recordNanos(nanos);
  }

  /** A batch accepted for writing failed (object store, fencing, shutdown). */
  public void batchFailed() {
    batchesFailed.increment();
  }

  /** A batch whose idempotency key was seen before: answered with the earlier ack, not written. */
  public void duplicateAbsorbed() {
    duplicates.increment();
  }

  /** Counts a refused batch or call; null (not the client's fault) counts nothing. */
  public void rejected(RejectReason reason) {
    if (reason != null) {
      rejects.get(reason).increment();
    }
  }

  /** A segment PUT succeeded; {@code nanos} from sealing to durable (retries included). */
  public void segmentWritten(long bytes, long nanos) {
    segments.increment();
    walBytes.add(bytes);
    flushLatency.recordNanos(nanos);
  }

  public void putRetried() {
    putRetries.increment();
  }

  public void putFailed() {
    putFailures.increment();
  }

  public void bufferedBytes(LongSupplier supplier) {
    this.bufferedBytes = supplier;
  }

  public void putsInProgress(LongSupplier supplier) {
    this.putsInProgress = supplier;
  }

  public Snapshot snapshot() {
    Map<RejectReason, Long> rejected = new EnumMap<>(RejectReason.class);
    rejects.forEach((reason, count) -> rejected.put(reason, count.sum()));
    return new Snapshot(batchesAccepted.sum(), rowsAccepted.sum(), bytesAccepted.sum(),
        batchesAcknowledged.sum(), rowsAcknowledged.sum(), batchesFailed.sum(), duplicates.sum(),
        segments.sum(), walBytes.sum(), putRetries.sum(), putFailures.sum(), rejected,
        flushLatency.snapshot(), ackLatency.snapshot(), bufferedBytes.getAsLong(),
        putsInProgress.getAsLong());
  }

  /** A copy of every figure. */
  public record Snapshot(
      long batchesAccepted, long rowsAccepted, long bytesAccepted, long batchesAcknowledged,
      long rowsAcknowledged, long batchesFailed, long duplicatesAbsorbed, long segmentsWritten,
      long walBytesWritten, long putRetries, long putFailures, Map<RejectReason, Long> rejects,
      LatencyHistogram.Snapshot flushLatency, LatencyHistogram.Snapshot ackLatency,
      long bufferedBytes, long putsInProgress) {

    public long rejectsTotal() {
      return rejects.values().stream().mapToLong(Long::longValue).sum();
    }
  }
}
