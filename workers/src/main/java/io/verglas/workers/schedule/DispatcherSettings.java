package io.verglas.workers.schedule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A dispatcher's configuration: database, handler, observers, owner name, handler threads,
 * leases held, the idle bound on one wait and the shutdown grace. Built by
 * {@link Dispatcher#builder}.
 */
public final class DispatcherSettings {
  public static final int CONCURRENCY_DEFAULT = 4;
  public static final int LEASES_PER_THREAD_DEFAULT = 4;
  public static final Duration MAX_IDLE_DEFAULT = Duration.ofSeconds(60);
  public static final Duration SHUTDOWN_GRACE_DEFAULT = Duration.ofSeconds(5);
  private final Database database;
  private final JobHandler handler;
  private final QueueSettings queueSettings;
  private final List<JobObserver> observers;
  private final String owner;
  private final int concurrency;
  private final int maxLeases;
  private final Duration maxIdle;
  private final Duration shutdownGrace;

  private DispatcherSettings(Builder b) {
    this.database = b.database;
    this.handler = b.handler;
    this.queueSettings = b.queueSettings;
    this.observers = List.copyOf(b.observers);
    this.owner = b.owner;
    this.concurrency = b.concurrency;
    this.maxLeases = b.maxLeases > 0 ? b.maxLeases : b.concurrency * LEASES_PER_THREAD_DEFAULT;
    this.maxIdle = b.maxIdle;
    this.shutdownGrace = b.shutdownGrace;
  }

  static Builder builder(Database database, JobHandler handler) {
    return new Builder(database, handler);
  }

  Database database() { return database; }
  JobHandler handler() { return handler; }
  QueueSettings queueSettings() { return queueSettings; }
  List<JobObserver> observers() { return observers; }
  String owner() { return owner; }
  int concurrency() { return concurrency; }
  int maxLeases() { return maxLeases; }
  Duration maxIdle() { return maxIdle; }
  Duration shutdownGrace() { return shutdownGrace; }

  /** Builds a {@link Dispatcher}; each setter validates its value. */
  public static final class Builder {
    private final Database database;
    private final JobHandler handler;
    private final List<JobObserver> observers = new ArrayList<>();
    private QueueSettings queueSettings = QueueSettings.defaults();
    private String owner = "dispatcher-" + UUID.randomUUID().toString().substring(0, 8);
    private int concurrency = CONCURRENCY_DEFAULT;
    private int maxLeases;
    private Duration maxIdle = MAX_IDLE_DEFAULT;
    private Duration shutdownGrace = SHUTDOWN_GRACE_DEFAULT;

    private Builder(Database database, JobHandler handler) {
      this.database = Objects.requireNonNull(database, "database");
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    public Builder queueSettings(QueueSettings value) {
      this.queueSettings = Objects.requireNonNull(value, "queueSettings");
      return this;
    }

    public Builder observer(JobObserver value) {
      observers.add(Objects.requireNonNull(value, "observer"));
      return this;
    }

    public Builder owner(String value) {
      if (value == null || !value.matches("[A-Za-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException("Cannot set dispatcher owner to " + value
            + ": expected 1-64 of [A-Za-z0-9._-]");
      }
      this.owner = value;
      return this;
    }

    public Builder concurrency(int value) {
      if (value < 1 || value > 1024) {
        throw new IllegalArgumentException("Cannot set concurrency to " + value
            + ": must be within 1..1024");
      }
      this.concurrency = value;
      return this;
    }

    /**
     * Leases held at once: running plus claimed and waiting for a handler thread (their lease
     * is kept alive by heartbeats from the claim on). Default {@value #LEASES_PER_THREAD_DEFAULT}
     * per handler thread; at least the concurrency.
     */
    public Builder maxLeases(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot set max leases to " + value
            + ": must be at least 1");
      }
      this.maxLeases = value;
      return this;
    }

    public Builder maxIdle(Duration value) {
      if (value == null || value.toMillis() < 1) {
        throw new IllegalArgumentException("Cannot set max idle to " + value
            + ": must be at least 1 ms");
      }
      this.maxIdle = value;
      return this;
    }

    public Builder shutdownGrace(Duration value) {
      this.shutdownGrace = Objects.requireNonNull(value, "shutdownGrace");
      return this;
    }

    public Dispatcher build() {
      if (maxLeases > 0 && maxLeases < concurrency) {
        throw new IllegalStateException("Cannot build dispatcher: max leases " + maxLeases
            + " is below the concurrency " + concurrency);
      }
      return new Dispatcher(new DispatcherSettings(this));
    }
  }
}
