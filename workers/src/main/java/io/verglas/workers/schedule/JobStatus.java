package io.verglas.workers.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * One job as the queue holds it now.
 *
 * @param runAt the next due time: run time when ready, lease expiry when leased
 */
public record JobStatus(String identity, JobState state, int attempts, long generation,
    Instant runAt, Optional<Instant> intervalStart, Optional<String> lastError) {}
