package io.verglas.ingest.wal;

import java.time.Duration;
import java.util.Objects;

/**
 * Group-commit settings of one ingest stream.
 *
 * @param flushBytes a table's pending segment is written once its batches reach this size
 * @param flushInterval ... or once its oldest batch waited this long
 * @param maxBufferedBytes bound on the encoded bytes of batches accepted but not yet durable
 * @param backpressureTimeout how long a writer waits for buffer space before giving up
 * @param retry how segment PUTs are retried
 * @param lanes how many segments are written at once (each lane is a WAL stream of its own,
 *     written in order; see {@link IngestLayout})
 * @param idempotencyWindow how long idempotency keys of durable batches are remembered
 * @param idempotencyMaxKeys at most this many keys are remembered (the oldest are dropped)
 * @param flushLinger while no lane is writing, a segment is written once its oldest batch waited
 *     this long (at most {@code flushInterval}): when the store is idle, waiting longer only adds
 *     latency, it saves no PUTs
 */
public record WalWriterConfig(
    long flushBytes, Duration flushInterval, long maxBufferedBytes, Duration backpressureTimeout,
    PutRetryPolicy retry, int lanes, Duration idempotencyWindow, int idempotencyMaxKeys,
    Duration flushLinger) {

  public static final long FLUSH_BYTES_DEFAULT = 8L << 20;
  public static final Duration FLUSH_INTERVAL_DEFAULT = Duration.ofMillis(200);
  public static final long MAX_BUFFERED_BYTES_DEFAULT = 256L << 20;
  public static final Duration BACKPRESSURE_TIMEOUT_DEFAULT = Duration.ofSeconds(30);
  public static final int LANES_DEFAULT = 4;
  public static final int MAX_LANES = 64;
  public static final Duration IDEMPOTENCY_WINDOW_DEFAULT = Duration.ofMinutes(15);
  public static final int IDEMPOTENCY_MAX_KEYS_DEFAULT = 1_000_000;
  public static final Duration FLUSH_LINGER_DEFAULT = Duration.ofMillis(5);

  public WalWriterConfig {
    Objects.requireNonNull(retry, "retry");
    if (flushBytes <= 0) {
      throw new IllegalArgumentException("Invalid flush bytes: " + flushBytes);
    }
    if (flushInterval == null || flushInterval.isNegative() || flushInterval.isZero()) {
      throw new IllegalArgumentException("Invalid flush interval: " + flushInterval);
    }
    if (maxBufferedBytes < flushBytes) {
      throw new IllegalArgumentException("Invalid max buffered bytes: " + maxBufferedBytes
          + " (must be at least the flush size " + flushBytes + ")");
    }
    if (backpressureTimeout == null || backpressureTimeout.isNegative()) {
      throw new IllegalArgumentException("Invalid backpressure timeout: " + backpressureTimeout);
    }
    if (lanes < 1 || lanes > MAX_LANES) {
      throw new IllegalArgumentException("Invalid lanes: " + lanes + " (1 to " + MAX_LANES + ")");
    }
    if (idempotencyWindow == null || idempotencyWindow.isNegative()) {
      throw new IllegalArgumentException("Invalid idempotency window: " + idempotencyWindow);
    }
    if (idempotencyMaxKeys < 0) {
      throw new IllegalArgumentException("Invalid idempotency max keys: " + idempotencyMaxKeys);
    }
    if (flushLinger == null || flushLinger.isNegative()
        || flushLinger.compareTo(flushInterval) > 0) {
      throw new IllegalArgumentException("Invalid flush linger: " + flushLinger + " (0 to the "
          + "flush interval " + flushInterval + ")");
    }
  }

  /** Settings that wait the whole flush interval even when the store is idle (no linger). */
  public WalWriterConfig(long flushBytes, Duration flushInterval, long maxBufferedBytes,
      Duration backpressureTimeout, PutRetryPolicy retry, int lanes, Duration idempotencyWindow,
      int idempotencyMaxKeys) {
    this(flushBytes, flushInterval, maxBufferedBytes, backpressureTimeout, retry, lanes,
        idempotencyWindow, idempotencyMaxKeys, flushInterval);
  }

  /** The settings without idempotency and lane choices, which take their defaults. */
  public WalWriterConfig(long flushBytes, Duration flushInterval, long maxBufferedBytes,
      Duration backpressureTimeout, PutRetryPolicy retry) {
    this(flushBytes, flushInterval, maxBufferedBytes, backpressureTimeout, retry, LANES_DEFAULT,
        IDEMPOTENCY_WINDOW_DEFAULT, IDEMPOTENCY_MAX_KEYS_DEFAULT);
  }

  public static WalWriterConfig defaults() {
    return new WalWriterConfig(FLUSH_BYTES_DEFAULT, FLUSH_INTERVAL_DEFAULT,
        MAX_BUFFERED_BYTES_DEFAULT, BACKPRESSURE_TIMEOUT_DEFAULT, PutRetryPolicy.defaults());
  }

  public WalWriterConfig withLanes(int lanes) {
    return new WalWriterConfig(flushBytes, flushInterval, maxBufferedBytes, backpressureTimeout,
        retry, lanes, idempotencyWindow, idempotencyMaxKeys, flushLinger);
  }
}
