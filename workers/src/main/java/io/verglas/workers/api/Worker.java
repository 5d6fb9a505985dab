package io.verglas.workers.api;

/**
 * A worker: a small program run once per dispatch (a cron tick, a webhook, a commit event).
 *
 * <p>Contract. Workers keep no state between runs: everything a run needs comes from its
 * {@link WorkerContext} (the trigger, config, secrets, the tables it is granted). A run may be
 * run again (the scheduler is at-least-once: a killed or timed-out run is re-dispatched), so a
 * run must make the same commits, in the same order, from the same trigger and table
 * snapshots: each commit's idempotency key is its ordinal in the run, and the table absorbs a
 * commit whose key it already holds. Side effects outside the granted tables are not made
 * exactly once by the platform.
 *
 * <p>The class needs a public no-argument constructor; the harness instantiates it in a JVM of
 * its own for every run.
 */
@FunctionalInterface
public interface Worker {
  /**
   * Runs one dispatch; throwing fails the run: it is retried with backoff, unless the exception
   * (or a cause of it) is a {@link PermanentFailureException}, which marks the job dead at once.
   */
  void handle(WorkerContext ctx) throws Exception;
}
