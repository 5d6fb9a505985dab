package io.verglas.workers.deploy;

import io.verglas.workers.trigger.CatchUp;
import io.verglas.workers.trigger.CronTrigger;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One trigger of a deployment as the record stores it. The local plane
 * ({@link DeploymentScheduler}) schedules the cron triggers and lists the webhook and event
 * triggers of the active revisions for the webhook route and the change feed subscriber.
 */
public sealed interface TriggerSpec {
  Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");
  /** A secret reference: {@code env:NAME} or {@code file:/absolute/path}. */
  Pattern SECRET_REFERENCE = Pattern.compile("env:[A-Za-z_][A-Za-z0-9_]*|file:/.+");

  /** The trigger's name, unique within its deployment. */
  String name();

  /** {@code cron}, {@code webhook} or {@code event}: the {@code type} of the record's JSON. */
  String type();

  private static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("Cannot use trigger name '" + name
          + "': expected 1-100 of [A-Za-z0-9._-]");
    }
    return name;
  }

  /** Five-field Unix cron in {@code zone} from {@code startDate}, with a catch-up policy. */
  record Cron(String name, String expression, ZoneId zone, Instant startDate, CatchUp catchUp)
      implements TriggerSpec {
    public Cron {
      checkName(name);
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(catchUp, "catchUp");
      if (startDate == null) {
        throw new IllegalArgumentException("Cannot use cron trigger " + name + ": no startDate");
      }
      CronTrigger.builder("check", name, expression); // parses the expression, or fails
    }

    @Override
    public String type() {
      return "cron";
    }

    /** The scheduler's trigger of this spec for {@code deployment}. */
    public CronTrigger trigger(String deployment) {
      return CronTrigger.builder(deployment, name, expression).zone(zone).startDate(startDate)
          .catchUp(catchUp).build();
    }
  }

  /**
   * An HTTP request to the deployment's webhook route becomes the trigger event.
   *
   * @param secret the reference ({@code env:NAME} or {@code file:/path}) of the Standard
   *     Webhooks signing secret; null: only the admin bearer token is accepted
   */
  record Webhook(String name, String secret) implements TriggerSpec {
    public Webhook {
      checkName(name);
      if (secret != null && !SECRET_REFERENCE.matcher(secret).matches()) {
        throw new IllegalArgumentException("Cannot use webhook trigger " + name + ": secret must"
            + " be a reference, env:NAME or file:/absolute/path (a record never holds a secret's value)");
      }
    }

    /** A webhook trigger that accepts the admin bearer token only. */
    public Webhook(String name) {
      this(name, null);
    }

    @Override
    public String type() {
      return "webhook";
    }
  }

  /** CloudEvents of exactly {@code eventType}, optionally only of a source and subject (null: any). */
  record Event(String name, String eventType, String source, String subject)
      implements TriggerSpec {
    public Event {
      checkName(name);
      if (eventType == null || eventType.isBlank()) {
        throw new IllegalArgumentException("Cannot use event trigger " + name + ": no eventType");
      }
    }

    @Override
    public String type() {
      return "event";
    }
  }
}
