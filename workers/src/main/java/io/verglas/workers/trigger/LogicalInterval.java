package io.verglas.workers.trigger;

import java.time.Instant;
import java.util.Objects;

/**
 * One cron interval in logical time: the run is responsible for {@code [start, end)} and runs
 * once the interval has closed ({@code end}). The logical date is the interval's start, as in
 * Airflow's data intervals.
 */
public record LogicalInterval(Instant start, Instant end) {
  public LogicalInterval {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    if (!end.isAfter(start)) {
      throw new IllegalArgumentException("Cannot make interval [" + start + ", " + end
          + "): end is not after start");
    }
  }

  public Instant logicalDate() {
    return start;
  }

  /** True once the interval has closed at {@code now}, so its run is due. */
  public boolean closedAt(Instant now) {
    return !end.isAfter(now);
  }
}
