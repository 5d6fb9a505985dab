package io.verglas.workers.trigger;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A deployment's cron trigger: expression (five-field Unix cron), time zone, start date and
 * catch-up policy. Its key ({@code deployment/name}) and an interval's start make the
 * deterministic identity of the interval's job.
 */
public final class CronTrigger {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");
  private final String deployment;
  private final String name;
  private final String expression;
  private final ZoneId zone;
  private final Instant startDate;
  private final CatchUp catchUp;
  private final int maxAttempts;

  private CronTrigger(Builder b) {
    this.deployment = b.deployment;
    this.name = b.name;
    this.expression = b.expression;
    this.zone = b.zone;
    this.startDate = b.startDate;
    this.catchUp = b.catchUp;
    this.maxAttempts = b.maxAttempts;
  }

  public static Builder builder(String deployment, String name, String expression) {
    return new Builder(deployment, name, expression);
  }

  public String deployment() { return deployment; }
  public String name() { return name; }
  public String expression() { return expression; }
  public ZoneId zone() { return zone; }
  public Instant startDate() { return startDate; }
  public CatchUp catchUp() { return catchUp; }
  /** 0: the queue's default. */
  public int maxAttempts() { return maxAttempts; }

  /** {@code deployment/name}: the key the trigger's jobs are stored under. */
  public String key() {
    return deployment + "/" + name;
  }

  /** The deterministic identity of the job for {@code interval}. */
  public String identity(LogicalInterval interval) {
    return key() + "/" + interval.start();
  }

  CronSchedule schedule() {
    return new CronSchedule(expression, zone, startDate);
  }

  /** Builds a {@link CronTrigger}; the start date is required. */
  public static final class Builder {
    private final String deployment;
    private final String name;
    private final String expression;
    private ZoneId zone = ZoneOffset.UTC;
    private Instant startDate;
    private CatchUp catchUp = CatchUp.NONE;
    private int maxAttempts;

    private Builder(String deployment, String name, String expression) {
      this.deployment = checkName("deployment", deployment);
      this.name = checkName("trigger", name);
      CronSchedule.parse(Objects.requireNonNull(expression, "expression"));
      this.expression = expression;
    }

    private static String checkName(String what, String value) {
      if (value == null || !NAME.matcher(value).matches()) {
        throw new IllegalArgumentException("Cannot use " + what + " name '" + value
            + "': expected 1-100 of [A-Za-z0-9._-]");
      }
      return value;
    }

    public Builder zone(ZoneId value) {
      this.zone = Objects.requireNonNull(value, "zone");
      return this;
    }

    public Builder startDate(Instant value) {
      this.startDate = Objects.requireNonNull(value, "startDate");
      return this;
    }

    public Builder catchUp(CatchUp value) {
      this.catchUp = Objects.requireNonNull(value, "catchUp");
      return this;
    }

    public Builder maxAttempts(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot set max attempts of trigger " + name
            + " to " + value + ": must be at least 1");
      }
      this.maxAttempts = value;
      return this;
    }

    public CronTrigger build() {
      if (startDate == null) {
        throw new IllegalStateException("Cannot build cron trigger " + name
            + ": no start date");
      }
      return new CronTrigger(this);
    }
  }
}
