package io.verglas.sdk;

/** A query the cache node refused or could not answer: its HTTP status, error type and message. */
public final class QueryFailedException extends RuntimeException {
  private final int status;
  private final String type;

  public QueryFailedException(int status, String type, String message) {
    super(message + " (" + status + " " + type + ")");
    this.status = status;
    this.type = type;
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }
}
