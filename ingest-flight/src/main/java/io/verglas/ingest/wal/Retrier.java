package io.verglas.ingest.wal;

import io.verglas.ingest.metrics.IngestMetrics;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs an object-store call, retrying retryable failures with the policy's backoff. */
final class Retrier {
  private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

  /** Pauses between attempts; tests pass one that does not sleep. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final PutRetryPolicy policy;
  private final Sleeper sleeper;
  private final IngestMetrics metrics;

  Retrier(PutRetryPolicy policy, Sleeper sleeper, IngestMetrics metrics) {
    this.policy = policy;
    this.sleeper = sleeper;
    this.metrics = metrics;
  }

  PutRetryPolicy policy() {
    return policy;
  }

  /**
   * The call's result.
   *
   * @throws SegmentStoreException the last failure, once it is not retryable or the attempts are
   *     used up (or the thread was interrupted while backing off)
   */
  <T> T call(String what, Supplier<T> call) {
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (RuntimeException e) {
        SegmentStoreException failure = e instanceof SegmentStoreException store ? store
            : new SegmentStoreException("Cannot " + what + ": " + e, e, false);
        if (!failure.retryable() || attempt >= policy.maxAttempts()) {
          LOG.warn("Giving up: {} after {} attempts", what, attempt, failure);
          throw new SegmentStoreException(failure.getMessage() + " (" + attempt
              + (attempt == 1 ? " attempt)" : " attempts)"), failure, failure.retryable());
        }
        LOG.debug("Retrying: {} (attempt {} failed)", what, attempt, failure);
        metrics.putRetried();
        try {
          sleeper.sleep(policy.backoff(attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new SegmentStoreException("Interrupted while retrying: " + what, failure, false);
        }
      }
    }
  }
}
