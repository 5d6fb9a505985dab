package io.verglas.workers.trigger;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The CloudEvent a cron dispatch carries: type {@value #TYPE}, source the trigger, id the job's
 * identity, time the interval's end. The logical time travels twice: as extensions
 * ({@value #LOGICAL_DATE}, {@value #INTERVAL_START}, {@value #INTERVAL_END}; RFC 3339 strings,
 * so a subscription filter or a bridge can read them without parsing data) and as the JSON
 * data {@code {"logicalDate", "intervalStart", "intervalEnd"}} for the worker.
 */
public final class CronTickEvents {
  public static final String TYPE = "io.verglas.cron.tick";
  public static final String LOGICAL_DATE = "logicaldate";
  public static final String INTERVAL_START = "intervalstart";
  public static final String INTERVAL_END = "intervalend";

  private CronTickEvents() {}

  public static CloudEvent tick(CronTrigger trigger, LogicalInterval interval) {
    String data = "{\"logicalDate\":\"" + interval.logicalDate() + "\",\"intervalStart\":\""
        + interval.start() + "\",\"intervalEnd\":\"" + interval.end() + "\"}";
    return CloudEventBuilder.v1()
        .withId(trigger.identity(interval))
        .withSource(URI.create("/verglas/deployments/" + trigger.deployment() + "/triggers/"
            + trigger.name()))
        .withType(TYPE)
        .withTime(OffsetDateTime.ofInstant(interval.end(), ZoneOffset.UTC))
        .withExtension(LOGICAL_DATE, interval.logicalDate().toString())
        .withExtension(INTERVAL_START, interval.start().toString())
        .withExtension(INTERVAL_END, interval.end().toString())
        .withData("application/json", data.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /** The logical interval a cron tick event carries. */
  public static LogicalInterval intervalOf(CloudEvent event) {
    if (!TYPE.equals(event.getType())) {
      throw new IllegalArgumentException("Cannot read logical interval from event "
          + event.getId() + ": type is " + event.getType() + ", not " + TYPE);
    }
    return new LogicalInterval(instant(event, INTERVAL_START), instant(event, INTERVAL_END));
  }

  private static Instant instant(CloudEvent event, String name) {
    Object value = event.getExtension(name);
    if (value == null) {
      throw new IllegalArgumentException("Cannot read logical interval from event "
          + event.getId() + ": no " + name + " extension");
    }
    return value instanceof OffsetDateTime t ? t.toInstant() : Instant.parse(value.toString());
  }
}
