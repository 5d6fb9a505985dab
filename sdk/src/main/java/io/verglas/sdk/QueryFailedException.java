package io.verglas.sdk;

/**
 * A query the cache node refused or could not answer: its HTTP status, error type and message.
 * When no node answered at all (the connection could not be made or broke off), there is no
 * status: {@link #answered()} is false and {@link #status()} is 0.
 */
public final class QueryFailedException extends RuntimeException {
  private static final String NO_ANSWER = "NoAnswer";
  private final int status;
  private final String type;

  public QueryFailedException(int status, String type, String message) {
    super(message + " (" + status + " " + type + ")");
    this.status = status;
    this.type = type;
  }

  private QueryFailedException(String message, Throwable cause) {
    super(message, cause);
    this.status = 0;
    this.type = NO_ANSWER;
  }

  /** A query no node answered: {@code message} says why, without an HTTP status. */
  static QueryFailedException noAnswer(String message, Throwable cause) {
    return new QueryFailedException(message, cause);
  }

  /** Whether a node answered (with {@link #status()}); false when none could be reached. */
  public boolean answered() {
    return status != 0;
  }

  /** The node's HTTP status, or 0 when no node answered. */
  public int status() {
    return status;
  }

  /** The node's error type, or {@code NoAnswer} when no node answered. */
  public String type() {
    return type;
  }
}
