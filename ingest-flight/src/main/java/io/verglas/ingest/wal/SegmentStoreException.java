package io.verglas.ingest.wal;

/**
 * An object-store call failed; {@link #retryable()} says whether the same call may succeed
 * later.
 */
public class SegmentStoreException extends RuntimeException {
  private final boolean retryable;

  public SegmentStoreException(String message, Throwable cause, boolean retryable) {
    super(message, cause);
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }
}
