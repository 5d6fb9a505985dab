package io.verglas.workers.trigger;

/** What a cron trigger does with intervals that closed before it was (re)started. */
public enum CatchUp {
  /** Replays each past interval in order; the next is enqueued only after the previous is done. */
  SEQUENTIAL,
  /** Enqueues every past interval at once; they run concurrently. */
  PARALLEL,
  /** Skips the backlog: only the latest closed interval runs, then live ones. */
  NONE
}
