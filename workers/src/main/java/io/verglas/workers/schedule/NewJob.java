package io.verglas.workers.schedule;

import io.cloudevents.CloudEvent;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A job to enqueue: its deterministic identity (enqueue is idempotent on it), the deployment it
 * runs, the trigger event it carries, when it may first run and how many attempts it gets.
 * Cron jobs also name their trigger and interval start, which the cron reconciler reads back.
 */
public final class NewJob {
  private final String identity;
  private final String deployment;
  private final CloudEvent event;
  private final Instant runAt;
  private final int maxAttempts;
  private final String triggerKey;
  private final Instant intervalStart;

  private NewJob(Builder b) {
    this.identity = b.identity;
    this.deployment = b.deployment;
    this.event = b.event;
    this.runAt = b.runAt;
    this.maxAttempts = b.maxAttempts;
    this.triggerKey = b.triggerKey;
    this.intervalStart = b.intervalStart;
  }

  public static Builder builder(String identity, String deployment, CloudEvent event) {
    return new Builder(identity, deployment, event);
  }

  public String identity() { return identity; }
  public String deployment() { return deployment; }
  public CloudEvent event() { return event; }
  /** Empty: run as soon as possible (the queue's clock at enqueue). */
  public Optional<Instant> runAt() { return Optional.ofNullable(runAt); }
  /** 0: the queue's default. */
  public int maxAttempts() { return maxAttempts; }
  public Optional<String> triggerKey() { return Optional.ofNullable(triggerKey); }
  public Optional<Instant> intervalStart() { return Optional.ofNullable(intervalStart); }

  /** Builds a {@link NewJob}; identity, deployment and event are required. */
  public static final class Builder {
    private final String identity;
    private final String deployment;
    private final CloudEvent event;
    private Instant runAt;
    private int maxAttempts;
    private String triggerKey;
    private Instant intervalStart;

    private Builder(String identity, String deployment, CloudEvent event) {
      if (identity == null || identity.isBlank()) {
        throw new IllegalArgumentException("Cannot build job: identity is empty");
      }
      if (deployment == null || deployment.isBlank()) {
        throw new IllegalArgumentException("Cannot build job " + identity + ": deployment is empty");
      }
      this.identity = identity;
      this.deployment = deployment;
      this.event = Objects.requireNonNull(event, "event");
    }

    public Builder runAt(Instant value) {
      this.runAt = Objects.requireNonNull(value, "runAt");
      return this;
    }

    public Builder maxAttempts(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot set max attempts of job " + identity
            + " to " + value + ": must be at least 1");
      }
      this.maxAttempts = value;
      return this;
    }

    /** Marks the job as the run of one cron interval of one trigger. */
    public Builder interval(String triggerKey, Instant intervalStart) {
      this.triggerKey = Objects.requireNonNull(triggerKey, "triggerKey");
      this.intervalStart = Objects.requireNonNull(intervalStart, "intervalStart");
      return this;
    }

    public NewJob build() {
      return new NewJob(this);
    }
  }
}
