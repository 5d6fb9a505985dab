package io.verglas.workers.deploy;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.trigger.CronTickEvents;
import io.verglas.workers.trigger.LogicalInterval;
import java.net.URI;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.regex.Pattern;

/**
 * Manual runs ({@code ./verglas trigger NAME}): jobs whose identity is deterministic in what the
 * caller asked for, so asking twice enqueues one run.
 *
 * <ul>
 *   <li>{@code <deployment>/manual/<id>} with an event of type {@value #TYPE}: a run for a
 *       caller-chosen id (the CLI makes one up when none is given and prints it, so a retry
 *       can name it).
 *   <li>{@code <deployment>/manual/<trigger>/<intervalStart>} with a cron tick of that trigger's
 *       interval starting at the logical date: a re-run of one interval, keyed apart from the
 *       scheduled run of the same interval (whose commits it does not share).
 * </ul>
 */
public final class ManualTriggers {
  public static final String TYPE = "io.verglas.manual";
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
  private static final CronParser CRON =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private ManualTriggers() {}

  /** A manual run of {@code record} named {@code id}. */
  public static NewJob run(DeploymentRecord record, String id, Instant now) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("Cannot trigger " + record.name() + ": id '" + id
          + "' is not 1-100 of [A-Za-z0-9._:-]");
    }
    String identity = record.name() + "/manual/" + id;
    CloudEvent event = CloudEventBuilder.v1().withId(identity)
        .withSource(URI.create("/verglas/deployments/" + record.name() + "/manual"))
        .withType(TYPE).withTime(OffsetDateTime.ofInstant(now, ZoneOffset.UTC)).build();
    return NewJob.builder(identity, record.name(), event).build();
  }

  /** A manual run of the cron trigger {@code trigger}'s interval starting at {@code logicalDate}. */
  public static NewJob interval(DeploymentRecord record, String trigger, Instant logicalDate) {
    TriggerSpec.Cron cron = record.cronTriggers().stream().filter(t -> t.name().equals(trigger))
        .findFirst().orElseThrow(() -> new IllegalArgumentException("Cannot trigger "
            + record.name() + ": it has no cron trigger '" + trigger + "' (its cron triggers: "
            + record.cronTriggers().stream().map(TriggerSpec::name).toList() + ")"));
    ExecutionTime times = ExecutionTime.forCron(CRON.parse(cron.expression()));
    ZonedDateTime start = logicalDate.atZone(cron.zone());
    if (!times.isMatch(start)) {
      throw new IllegalArgumentException("Cannot trigger " + record.name() + ": " + logicalDate
          + " is not a fire time of '" + cron.expression() + "' in " + cron.zone());
    }
    Instant end = times.nextExecution(start).orElseThrow().toInstant();
    CloudEvent tick = CronTickEvents.tick(cron.trigger(record.name()), new LogicalInterval(logicalDate, end));
    String identity = record.name() + "/manual/" + trigger + "/" + logicalDate;
    return NewJob.builder(identity, record.name(), tick).build();
  }
}
