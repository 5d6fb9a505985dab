package io.verglas.workers.schedule;

/**
 * Thrown by a {@link JobHandler} for a failure no retry can cure (the job's worker cannot be
 * loaded, the trigger is refused for good, the deployment was undeployed): the queue marks the
 * job dead at once, with this message as its last error, instead of retrying it with backoff.
 */
public final class PermanentJobFailure extends RuntimeException {
  public PermanentJobFailure(String message, Throwable cause) {
    super(message, cause);
  }

  public PermanentJobFailure(String message) {
    super(message);
  }
}
