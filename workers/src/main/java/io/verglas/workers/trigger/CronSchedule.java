package io.verglas.workers.trigger;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * The intervals of one cron expression (five-field Unix syntax, parsed by cron-utils) in one
 * time zone, from a start date: consecutive fire times bound consecutive intervals.
 */
final class CronSchedule {
  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private final ExecutionTime times;
  private final ZoneId zone;
  private final Instant startDate;

  CronSchedule(String expression, ZoneId zone, Instant startDate) {
    this.times = ExecutionTime.forCron(parse(expression));
    this.zone = zone;
    this.startDate = startDate;
  }

  static Cron parse(String expression) {
    try {
      return PARSER.parse(expression).validate();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot parse cron expression '" + expression + "': "
          + e.getMessage(), e);
    }
  }

  /** The first interval: it starts at the first fire time at or after the start date. */
  LogicalInterval first() {
    ZonedDateTime at = startDate.atZone(zone);
    Instant start = times.isMatch(at) ? startDate : next(startDate);
    return new LogicalInterval(start, next(start));
  }

  /** The interval right after {@code interval}. */
  LogicalInterval after(LogicalInterval interval) {
    return new LogicalInterval(interval.end(), next(interval.end()));
  }

  /** The interval starting at {@code start} (a fire time, as stored with an enqueued job). */
  LogicalInterval startingAt(Instant start) {
    return new LogicalInterval(start, next(start));
  }

  private Instant next(Instant after) {
    return times.nextExecution(after.atZone(zone)).map(ZonedDateTime::toInstant)
        .orElseThrow(() -> new IllegalStateException("Cannot find a cron fire time after "
            + after));
  }
}
