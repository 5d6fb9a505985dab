package io.verglas.workers.schedule;

/**
 * Runs one dispatch. Returning completes the job (if the lease is still live); throwing fails
 * the attempt (retry after backoff, or dead after the last attempt), except throwing
 * {@link PermanentJobFailure}, which marks the job dead at once. Handlers are at-least-once:
 * a job whose consumer died or was fenced runs again.
 */
@FunctionalInterface
public interface JobHandler {
  void handle(Lease lease) throws Exception;
}
