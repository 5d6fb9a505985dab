package example;

import io.verglas.sdk.TableSnapshot;
import io.verglas.workers.api.Worker;
import io.verglas.workers.api.WorkerContext;
import io.verglas.workers.api.WorkerTable;
import io.verglas.workers.trigger.CronTickEvents;
import io.verglas.workers.trigger.LogicalInterval;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An example worker: on each hourly cron tick, aggregates the raw events of the tick's logical
 * interval [intervalStart, intervalEnd) into one row per item of the hourly table.
 *
 * <p>Deployment: config {@code source} names the raw events table
 * ({@code id long, ts_ms long, item string, amount long}), read-granted; output {@code hourly}
 * names the aggregate table ({@code hour string, item string, events long, amount long},
 * primary key {@code (hour, item)}), write-granted. Its one commit per run is keyed by the
 * harness, so a re-dispatched tick changes nothing. Run by {@code WorkerHarnessITCase}, compiled
 * from this file into a jar.
 */
public final class HourlyAggregate implements Worker {
  private static final DateTimeFormatter HOUR =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH").withZone(ZoneOffset.UTC);

  @Override
  public void handle(WorkerContext ctx) {
    LogicalInterval interval = CronTickEvents.intervalOf(ctx.trigger());
    WorkerTable raw = ctx.table(ctx.config().get("source"));
    TableSnapshot snapshot = raw.snapshot();
    if (snapshot == null) {
      ctx.log().info("no raw events yet");
      return;
    }
    long from = interval.start().toEpochMilli();
    long to = interval.end().toEpochMilli();
    Map<String, long[]> byItem = new TreeMap<>();
    for (Map<String, Object> event : raw.rows(snapshot.snapshotId(), null).rows()) {
      long ts = ((Number) event.get("ts_ms")).longValue();
      if (ts >= from && ts < to) {
        long[] sums = byItem.computeIfAbsent((String) event.get("item"), item -> new long[2]);
        sums[0]++;
        sums[1] += ((Number) event.get("amount")).longValue();
      }
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    String hour = HOUR.format(interval.start());
    byItem.forEach((item, sums) ->
        rows.add(Map.of("hour", hour, "item", item, "events", sums[0], "amount", sums[1])));
    if (!rows.isEmpty()) {
      ctx.output("hourly").commit(rows);
    }
    ctx.log().info(hour + ": " + rows.size() + " items from snapshot " + snapshot.snapshotId());
  }
}
