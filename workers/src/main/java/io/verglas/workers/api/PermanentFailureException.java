package io.verglas.workers.api;

/**
 * A run failure that retrying cannot cure: the job is marked dead at once, with this message
 * as its reason, instead of being retried with backoff until its attempts run out.
 *
 * <p>Throw it (or let it escape as the cause of another exception) from
 * {@link Worker#handle} when the trigger itself is unusable, for example an event the worker
 * refuses for good. Any other exception, a timeout or a crashed process is retried.
 * {@link DataGrantException} is one: a grant does not change between attempts of a deployment
 * revision.
 */
public class PermanentFailureException extends RuntimeException {
  private static final int MAX_CAUSES = 32;

  public PermanentFailureException(String message) {
    super(message);
  }

  public PermanentFailureException(String message, Throwable cause) {
    super(message, cause);
  }

  /** True if {@code failure} or any of its causes is a permanent failure. */
  public static boolean isPermanent(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
      if (t instanceof PermanentFailureException) {
        return true;
      }
    }
    return false;
  }
}
