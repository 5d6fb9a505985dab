package io.verglas.workers.schedule;

import java.util.Locale;

/** Where a job is in its life: ready to run, leased by a consumer, done, or dead. */
public enum JobState {
  /** Waiting for its run time (first run or a retry after backoff). */
  READY,
  /** Claimed by a consumer under a lease generation until the lease expires. */
  LEASED,
  /** Completed by the consumer holding the live generation. */
  DONE,
  /**
   * Failed on its last attempt, or permanently on any (its last error says why), or its last
   * lease expired; not run again.
   */
  DEAD;

  String sql() {
    return name().toLowerCase(Locale.ROOT);
  }

  static JobState ofSql(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }

  /** True once the job will not run again. */
  public boolean finished() {
    return this == DONE || this == DEAD;
  }
}
