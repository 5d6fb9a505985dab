package io.verglas.workers.harness;

/** A run that did not end: the worker failed, timed out or its process died. */
public final class WorkerRunException extends Exception {
  private final boolean timedOut;

  WorkerRunException(String message, boolean timedOut) {
    super(message);
    this.timedOut = timedOut;
  }

  /** True when the harness killed the run at its timeout. */
  public boolean timedOut() {
    return timedOut;
  }
}
