package io.verglas.ingest.wal;

/**
 * A batch could not be made durable, or was not accepted for writing: the object store kept
 * failing, the ingest buffer stayed full, or the writer is closed. Clients may retry the batch
 * (with the same idempotency key) on this or another ingest process.
 */
public class WalUnavailableException extends RuntimeException {
  public WalUnavailableException(String message) {
    super(message);
  }

  public WalUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
