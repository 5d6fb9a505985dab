package io.verglas.ingest.wal;

import java.time.Duration;
import java.util.Objects;

/**
 * Group-commit settings of one WAL stream.
 *
 * @param flushBytes a table's pending segment is written once its batches reach this size
 * @param flushInterval ... or once its oldest batch waited this long
 * @param maxBufferedBytes bound on the encoded bytes of batches accepted but not yet durable
 * @param backpressureTimeout how long a writer waits for buffer space before giving up
 * @param retry how segment PUTs are retried
 */
public record WalWriterConfig(
    long flushBytes, Duration flushInterval, long maxBufferedBytes, Duration backpressureTimeout,
    PutRetryPolicy retry) {

  public static final long FLUSH_BYTES_DEFAULT = 8L << 20;
  public static final Duration FLUSH_INTERVAL_DEFAULT = Duration.ofMillis(200);
  public static final long MAX_BUFFERED_BYTES_DEFAULT = 256L << 20;
  public static final Duration BACKPRESSURE_TIMEOUT_DEFAULT = Duration.ofSeconds(30);

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
  }

  public static WalWriterConfig defaults() {
    return new WalWriterConfig(FLUSH_BYTES_DEFAULT, FLUSH_INTERVAL_DEFAULT,
        MAX_BUFFERED_BYTES_DEFAULT, BACKPRESSURE_TIMEOUT_DEFAULT, PutRetryPolicy.defaults());
  }
}
