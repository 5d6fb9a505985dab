package io.verglas.workers.api;

/**
 * A run's logger: each message becomes a {@code log} event of the run in the deployment's logs
 * table (bounded per run; the harness says how many it dropped).
 */
public interface WorkerLog {
  void info(String message);

  void warn(String message);

  void error(String message);
}
