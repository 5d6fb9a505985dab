package io.verglas.workers.check;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.workers.trigger.CronTickEvents;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a worker check runs the worker against: the tables (created afresh for every run, with
 * their seed rows), the config and secrets, the trigger event and the run timeout. Config
 * values that name a fixture table are rewritten to that run's scratch copy, as are the
 * outputs, the grants and a trigger subject naming a table.
 */
public final class CheckFixture {
  /** The default trigger: the cron tick of the hour 2026-01-01T00:00Z–01:00Z. */
  public static final CloudEvent DEFAULT_TRIGGER = tick(Instant.parse("2026-01-01T00:00:00Z"));

  private final List<FixtureTable> tables;
  private final Map<String, String> config;
  private final Map<String, String> secrets;
  private final CloudEvent trigger;
  private final Duration timeout;

  private CheckFixture(Builder b) {
    this.tables = List.copyOf(b.tables);
    this.config = Map.copyOf(b.config);
    this.secrets = Map.copyOf(b.secrets);
    this.trigger = b.trigger;
    this.timeout = b.timeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  public List<FixtureTable> tables() { return tables; }
  public Map<String, String> config() { return config; }
  public Map<String, String> secrets() { return secrets; }
  public CloudEvent trigger() { return trigger; }
  public Duration timeout() { return timeout; }

  /** The cron tick of the hour starting at {@code start}. */
  public static CloudEvent tick(Instant start) {
    Instant end = start.plus(Duration.ofHours(1));
    return CloudEventBuilder.v1().withId("check/tick/" + start)
        .withSource(URI.create("/verglas/check")).withType(CronTickEvents.TYPE)
        .withExtension(CronTickEvents.LOGICAL_DATE, start.toString())
        .withExtension(CronTickEvents.INTERVAL_START, start.toString())
        .withExtension(CronTickEvents.INTERVAL_END, end.toString()).build();
  }

  /** Builds a {@link CheckFixture}: no tables, no config, the default tick, 120 s per run. */
  public static final class Builder {
    private final List<FixtureTable> tables = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private Map<String, String> config = Map.of();
    private Map<String, String> secrets = Map.of();
    private CloudEvent trigger = DEFAULT_TRIGGER;
    private Duration timeout = Duration.ofSeconds(120);

    private Builder() {}

    public Builder table(FixtureTable table) {
      if (!names.add(table.name())) {
        throw new IllegalArgumentException("Invalid check fixture: table " + table.name()
            + " is given twice");
      }
      tables.add(table);
      return this;
    }

    public Builder config(Map<String, String> value) {
      this.config = Objects.requireNonNull(value, "config");
      return this;
    }

    public Builder secrets(Map<String, String> value) {
      this.secrets = Objects.requireNonNull(value, "secrets");
      return this;
    }

    public Builder trigger(CloudEvent value) {
      this.trigger = Objects.requireNonNull(value, "trigger");
      return this;
    }

    public Builder timeout(Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid check run timeout: " + value);
      }
      this.timeout = value;
      return this;
    }

    public CheckFixture build() {
      return new CheckFixture(this);
    }
  }
}
