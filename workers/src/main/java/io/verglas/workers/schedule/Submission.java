package io.verglas.workers.schedule;

import java.util.Optional;

/**
 * What a local submit ({@link JobQueue#enqueueLeased}) did.
 *
 * @param added whether the job was new (false: a job with its identity existed, nothing changed)
 * @param lease the lease to run it under at once; empty when it exists already, or when its
 *     deployment is at its concurrency limit (then it was enqueued ready and waits for room)
 */
public record Submission(boolean added, Optional<Lease> lease) {
  static final Submission EXISTS = new Submission(false, Optional.empty());
  static final Submission WAITING = new Submission(true, Optional.empty());

  static Submission leased(Lease lease) {
    return new Submission(true, Optional.of(lease));
  }
}
