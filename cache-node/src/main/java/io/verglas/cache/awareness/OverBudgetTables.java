package io.verglas.cache.awareness;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The tables whose metadata last exceeded the per-table budget, and when each may be walked
 * again to see whether it fits now.
 *
 * <p>Rule: a table that went over budget is not walked for {@code retry}; the first walk asked
 * for after that (a commit, a poll, a startup walk) runs, and stops as soon as it passes the
 * budget, so a retry reads at most the budget. If it fits, the table is re-admitted (warmed on
 * every commit again); if not, the wait doubles, up to {@link #MAX_BACKOFF} times {@code retry}.
 * So a table whose metadata shrank back under the budget (snapshots expired, manifests or files
 * compacted) is warmed again on its first commit at most {@code 16 × retry} after it shrank,
 * while one that stays too large costs at most one budget's reads per wait.
 */
final class OverBudgetTables {
  /** The longest wait between retries, in multiples of the first. */
  static final int MAX_BACKOFF = 16;

  private record State(int failures, long retryAtNanos) {}

  private final long retryNanos;
  private final LongSupplier nanos;
  private final Map<String, State> tables = new ConcurrentHashMap<>();

  OverBudgetTables(long retryNanos, LongSupplier nanos) {
    if (retryNanos <= 0) {
      throw new IllegalArgumentException("Invalid over-budget retry: " + retryNanos + " ns (must be > 0)");
    }
    this.retryNanos = retryNanos;
    this.nanos = nanos;
  }

  /** Whether a walk of the table is to be skipped: it is over budget and its retry is not due. */
  boolean skip(String table) {
    State state = tables.get(table);
    return state != null && nanos.getAsLong() - state.retryAtNanos() < 0;
  }

  /** Records that a walk of the table exceeded the budget (again). */
  void exceeded(String table) {
    tables.compute(table, (t, previous) -> {
      int failures = previous == null ? 1 : previous.failures() + 1;
      long wait = retryNanos * Math.min(MAX_BACKOFF, 1L << Math.min(failures - 1, 30));
      return new State(failures, nanos.getAsLong() + wait);
    });
  }

  /** Records that a walk of the table fit the budget; true if the table was over budget until now. */
  boolean fits(String table) {
    return tables.remove(table) != null;
  }

  /** The tables over budget now, sorted. */
  List<String> tables() {
    return tables.keySet().stream().sorted().toList();
  }
}
