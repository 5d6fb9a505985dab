package io.verglas.workers;

import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.DispatcherSettings;
import io.verglas.workers.schedule.JobHandler;
import io.verglas.workers.schedule.JobObserver;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.Lease;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.trigger.CronReconciler;
import io.verglas.workers.trigger.CronTrigger;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The scheduling service of one queue: a {@link Dispatcher} consuming it and a
 * {@link CronReconciler} keeping it holding what the cron triggers owe. The set of triggers can
 * be replaced while it runs ({@link #schedule}), as deployments come and go.
 *
 * <p>Design. Stateless: everything it knows is in the queue's tables, so {@link #start()} after
 * a crash, on another machine, or beside a second instance is safe. Start applies the schema,
 * starts the dispatcher (which reconciles the cron triggers as their jobs are claimed and
 * completed) and then reconciles every trigger once, which enqueues the backlog a restart
 * left and the next open interval of each.
 */
public final class WorkerScheduler implements AutoCloseable {
  private final Dispatcher dispatcher;
  private final JobQueue triggers;
  private volatile CronReconciler reconciler;

  private WorkerScheduler(Builder b) {
    this.triggers = new JobQueue(b.database, b.queueSettings);
    this.reconciler = new CronReconciler(triggers, b.cron,
        CronReconciler.MAX_INTERVALS_PER_PASS_DEFAULT);
    JobObserver current = new JobObserver() { // the reconciler of the triggers scheduled now
      @Override
      public void claimed(Lease lease) {
        reconciler.claimed(lease);
      }

      @Override
      public void completed(Lease lease) {
        reconciler.completed(lease);
      }
    };
    DispatcherSettings.Builder dispatcher = Dispatcher.builder(b.database, b.handler)
        .queueSettings(b.queueSettings).observer(current);
    this.dispatcher = b.dispatcherOptions.apply(dispatcher).build();
  }

  public static Builder builder(Database database, JobHandler handler) {
    return new Builder(database, handler);
  }

  /** Starts consuming and reconciles every cron trigger; returns how many jobs that added. */
  public int start() {
    dispatcher.start();
    return reconciler.reconcileAll();
  }

  /**
   * Replaces the cron triggers with {@code cron} and reconciles them; returns how many jobs
   * that added. A trigger left out is no longer reconciled (its jobs already enqueued stay).
   */
  public synchronized int schedule(List<CronTrigger> cron) {
    CronReconciler next = new CronReconciler(triggers, cron,
        CronReconciler.MAX_INTERVALS_PER_PASS_DEFAULT);
    reconciler = next;
    return next.reconcileAll();
  }

  /** The queue, e.g. to list or cancel jobs. */
  public JobQueue queue() {
    return triggers;
  }

  /** The dispatcher, e.g. to submit jobs from this process. */
  public Dispatcher dispatcher() {
    return dispatcher;
  }

  @Override
  public void close() {
    dispatcher.close();
    triggers.close();
  }

  /** Builds a {@link WorkerScheduler}; database and handler are required. */
  public static final class Builder {
    private final Database database;
    private final JobHandler handler;
    private final List<CronTrigger> cron = new ArrayList<>();
    private QueueSettings queueSettings = QueueSettings.defaults();
    private UnaryOperator<DispatcherSettings.Builder> dispatcherOptions = UnaryOperator.identity();

    private Builder(Database database, JobHandler handler) {
      this.database = Objects.requireNonNull(database, "database");
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    public Builder cron(CronTrigger trigger) {
      cron.add(Objects.requireNonNull(trigger, "trigger"));
      return this;
    }

    public Builder queueSettings(QueueSettings value) {
      this.queueSettings = Objects.requireNonNull(value, "queueSettings");
      return this;
    }

    /** Further dispatcher options (concurrency, leases, owner, idle bound). */
    public Builder dispatcher(UnaryOperator<DispatcherSettings.Builder> options) {
      this.dispatcherOptions = Objects.requireNonNull(options, "options");
      return this;
    }

    public WorkerScheduler build() {
      return new WorkerScheduler(this);
    }
  }
}
