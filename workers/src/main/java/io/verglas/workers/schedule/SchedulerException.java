package io.verglas.workers.schedule;

/** The scheduler's database could not do what was asked; the message says what and why. */
public final class SchedulerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SchedulerException(String message, Throwable cause) {
    super(message, cause);
  }
}
