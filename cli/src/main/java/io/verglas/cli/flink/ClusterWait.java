package io.verglas.cli.flink;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Waits for a session cluster's process to reach a state the REST API shows, failing early
 * (with the end of its log) when the process exits meanwhile, and after
 * {@link FlinkSessionCluster#START_TIMEOUT}.
 */
final class ClusterWait {
  private static final long POLL_MILLIS = 200;
  private static final int LOG_LINES = 15;

  private ClusterWait() {}

  /** Polls {@code condition} (an exception counts as not yet) until it holds. */
  static void await(String what, FlinkProcess process, BooleanSupplier condition) {
    long deadline = System.nanoTime() + FlinkSessionCluster.START_TIMEOUT.toNanos();
    while (!holds(condition)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Cannot start the Flink cluster: the " + process.role()
            + " exited while waiting for " + what + "; its log " + process.log() + " ends with:\n"
            + tail(process));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot start the Flink cluster: no sign of " + what
            + " after " + FlinkSessionCluster.START_TIMEOUT.toSeconds() + " s; see " + process.log());
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Cannot start the Flink cluster: interrupted", e);
      }
    }
  }

  private static boolean holds(BooleanSupplier condition) {
    try {
      return condition.getAsBoolean();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String tail(FlinkProcess process) {
    try {
      List<String> lines = Files.readAllLines(process.log());
      if (lines.isEmpty()) {
        lines = Files.readAllLines(process.log().resolveSibling(process.role() + ".out"));
      }
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
