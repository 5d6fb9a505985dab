package io.verglas.workers.trigger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides which intervals of a cron trigger to enqueue now: state in (the schedule, the policy,
 * the clock reading, the latest interval already enqueued and whether it is done), intervals
 * out. Pure, so every policy is tested without a database.
 *
 * <p>Design. The candidates are the intervals after the latest enqueued one (or from the start
 * date), up to and including the first one still open at {@code now}; that open interval is
 * enqueued too, with its end as run time, so the next tick is a durable due time in the queue
 * rather than a timer in memory, and nothing is planned while that open interval is still
 * open (its job is the trigger's timer). Sequential returns one candidate, and only once the latest
 * enqueued interval is done (a dead interval stops the trigger: later intervals may depend on
 * it). Parallel returns them all, at most {@code maxIntervals} per call (the rest follow on the
 * next call, which starts after the latest enqueued). None returns the latest closed candidate
 * and the open one.
 */
final class CronPlanner {
  private CronPlanner() {}

  /** The latest interval already enqueued: its start and whether its job is done. */
  record Latest(Instant intervalStart, boolean done) {}

  static List<LogicalInterval> plan(CronSchedule schedule, CatchUp catchUp, Instant now,
      Optional<Latest> latest, int maxIntervals) {
    if (latest.isPresent() && waiting(schedule, catchUp, now, latest.get())) {
      return List.of();
    }
    LogicalInterval next = latest.map(l -> schedule.after(schedule.startingAt(l.intervalStart())))
        .orElseGet(schedule::first);
    switch (catchUp) {
      case SEQUENTIAL:
        return List.of(next);
      case PARALLEL:
        return upToOpen(schedule, next, now, maxIntervals);
      case NONE:
        return latestClosedAndOpen(schedule, next, now);
      default:
        throw new IllegalArgumentException("Cannot plan catch-up " + catchUp);
    }
  }

  /**
   * True while the queue already holds what the trigger owes: sequential waits for its latest
   * interval to be done, the others for their latest (the open interval) to close.
   */
  private static boolean waiting(CronSchedule schedule, CatchUp catchUp, Instant now,
      Latest latest) {
    if (catchUp == CatchUp.SEQUENTIAL) {
      return !latest.done();
    }
    return !schedule.startingAt(latest.intervalStart()).closedAt(now);
  }

  private static List<LogicalInterval> upToOpen(CronSchedule schedule, LogicalInterval from,
      Instant now, int maxIntervals) {
    List<LogicalInterval> out = new ArrayList<>();
    LogicalInterval current = from;
    while (out.size() < maxIntervals) {
      out.add(current);
      if (!current.closedAt(now)) {
        break;
      }
      current = schedule.after(current);
    }
    return out;
  }

  private static List<LogicalInterval> latestClosedAndOpen(CronSchedule schedule,
      LogicalInterval from, Instant now) {
    LogicalInterval closed = null;
    LogicalInterval current = from;
    while (current.closedAt(now)) {
      closed = current;
      current = schedule.after(current);
    }
    return closed == null ? List.of(current) : List.of(closed, current);
  }
}
