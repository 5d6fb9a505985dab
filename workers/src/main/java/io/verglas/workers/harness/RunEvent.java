package io.verglas.workers.harness;

import java.time.Instant;
import java.util.Objects;

/**
 * One event of a run, as the run's process reports it to the harness and as the harness
 * appends it to the deployment's logs table.
 *
 * @param table the committed table (commit events), else null
 * @param rows rows of the commit, or of all the run's commits (end), else null
 * @param snapshotId the first snapshot holding the commit, else null
 * @param key the commit's idempotency key, else null
 * @param level a log event's level (info, warn, error), else null
 */
public record RunEvent(Kind kind, Instant time, String table, Long rows, Long snapshotId,
    String key, String level, String message) {

  /**
   * What happened. A run ends with one of END, ERROR (a failure a retry may cure) or
   * PERMANENT_ERROR (one no retry can cure: the worker class cannot be loaded or used, a data
   * or queue grant refused, a {@link io.verglas.workers.api.PermanentFailureException}).
   */
  public enum Kind {
    START, COMMIT, LOG, END, ERROR, PERMANENT_ERROR;

    /** True for the kinds that end a run. */
    public boolean ends() {
      return this == END || this == ERROR || this == PERMANENT_ERROR;
    }
  }

  public RunEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(time, "time");
  }

  static RunEvent start(Instant time, String message) {
    return new RunEvent(Kind.START, time, null, null, null, null, null, message);
  }

  static RunEvent commit(Instant time, String table, long rows, long snapshotId, String key) {
    return new RunEvent(Kind.COMMIT, time, table, rows, snapshotId, key, null, null);
  }

  static RunEvent log(Instant time, String level, String message) {
    return new RunEvent(Kind.LOG, time, null, null, null, null, level, message);
  }

  static RunEvent end(Instant time, long rows, String message) {
    return new RunEvent(Kind.END, time, null, rows, null, null, null, message);
  }

  static RunEvent error(Instant time, String message) {
    return new RunEvent(Kind.ERROR, time, null, null, null, null, null, message);
  }

  static RunEvent permanentError(Instant time, String message) {
    return new RunEvent(Kind.PERMANENT_ERROR, time, null, null, null, null, null, message);
  }

  /** The same event with its message cut to {@code maxChars}. */
  RunEvent truncated(int maxChars) {
    if (message == null || message.length() <= maxChars) {
      return this;
    }
    return new RunEvent(kind, time, table, rows, snapshotId, key, level,
        message.substring(0, maxChars) + "... (" + message.length() + " chars)");
  }
}
