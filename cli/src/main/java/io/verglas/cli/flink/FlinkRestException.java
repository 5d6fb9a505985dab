package io.verglas.cli.flink;

/**
 * A Flink REST call that failed: the cluster answered an error (its status and Flink's message)
 * or did not answer. The message says which cluster and why, for a caller to prefix with what
 * it could not do ("Cannot submit the materializer job: " + message).
 */
public final class FlinkRestException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;

  FlinkRestException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status, or 0 when the cluster did not answer. */
  public int status() {
    return status;
  }
}
