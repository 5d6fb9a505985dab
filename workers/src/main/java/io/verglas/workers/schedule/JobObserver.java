package io.verglas.workers.schedule;

/**
 * Told about a job's claim and its accepted completion, after the queue recorded them. Trigger
 * reconcilers use it to enqueue what follows (the next cron interval). Observers must be quick
 * and must not throw for a job they do not own.
 */
public interface JobObserver {
  default void claimed(Lease lease) {}

  default void completed(Lease lease) {}
}
