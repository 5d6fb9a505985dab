package io.verglas.workers.schedule;

/**
 * Where a trigger puts the jobs it makes: {@link JobQueue#enqueue} or, to run a due job at once
 * in this process, {@link Dispatcher#submit}. Both are idempotent on the job's identity.
 */
@FunctionalInterface
public interface JobSink {
  /** Enqueues {@code job} unless a job with its identity exists; true if this call added it. */
  boolean enqueue(NewJob job);
}
