package io.verglas.workers.api;

/** A worker touched a table its deployment is not granted. */
public final class DataGrantException extends RuntimeException {
  public DataGrantException(String message) {
    super(message);
  }
}
