package io.verglas.ingest.validation;

/** A stream or batch that does not fit its table; nothing of it was written. */
public class InvalidBatchException extends RuntimeException {
  public InvalidBatchException(String message) {
    super(message);
  }

  public InvalidBatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
