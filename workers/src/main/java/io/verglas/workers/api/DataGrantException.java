package io.verglas.workers.api;

/**
 * A worker touched a table or queue its deployment is not granted. Permanent: the job is marked
 * dead at once, as no retry of the same deployment revision is granted more.
 */
public final class DataGrantException extends PermanentFailureException {
  public DataGrantException(String message) {
    super(message);
  }
}
