package io.verglas.workers.harness;

import java.util.Objects;

/** A run that did not end: the worker failed, timed out or its process died. */
public final class WorkerRunException extends Exception {
  /** How a run failed. */
  public enum Failure {
    /** The worker threw, its process died, or the run could not start for now: retried. */
    FAILED,
    /** The harness killed the run at its timeout: retried. */
    TIMED_OUT,
    /** No retry can succeed (see {@link RunEvent.Kind#PERMANENT_ERROR}): not retried. */
    PERMANENT
  }

  private final Failure failure;

  WorkerRunException(String message, Failure failure) {
    super(message);
    this.failure = Objects.requireNonNull(failure, "failure");
  }

  public Failure failure() {
    return failure;
  }

  /** True when the harness killed the run at its timeout. */
  public boolean timedOut() {
    return failure == Failure.TIMED_OUT;
  }

  /** True when retrying the run cannot succeed. */
  public boolean permanent() {
    return failure == Failure.PERMANENT;
  }
}
