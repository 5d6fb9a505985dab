package io.verglas.workers.schedule;

import io.cloudevents.CloudEvent;
import java.time.Instant;
import java.util.Objects;

/**
 * A consumer's claim on one job: the job and the generation it was claimed under. Completion,
 * failure and heartbeat count only while {@code generation} is the job's live generation; a
 * consumer whose lease expired and was re-claimed by another holds a stale generation and is
 * fenced.
 *
 * @param attempt 1 for the first run, counting every claim (an expired lease used an attempt)
 */
public record Lease(long jobId, String identity, String deployment, CloudEvent event,
    int attempt, int maxAttempts, long generation, Instant leaseUntil) {
  public Lease {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
  }

  /** True if a failure now ends the job rather than scheduling a retry. */
  public boolean lastAttempt() {
    return attempt >= maxAttempts;
  }
}
