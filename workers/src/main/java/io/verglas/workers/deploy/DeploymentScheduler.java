package io.verglas.workers.deploy;

import io.verglas.workers.harness.Deployment;
import io.verglas.workers.harness.HarnessJobHandler;
import io.verglas.workers.harness.RunObserver;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.DispatcherSettings;
import io.verglas.workers.schedule.JobObserver;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.Lease;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.trigger.CronReconciler;
import io.verglas.workers.trigger.CronTrigger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local plane of stored deployments: a {@link Dispatcher} that runs every job through the
 * {@link WorkerHarness}, with the deployment of each job read from the {@link DeploymentStore},
 * and a {@link CronReconciler} over the cron triggers of the active deployments.
 *
 * <p>Design. The store is the truth and this class holds nothing it cannot rebuild: every job
 * reads its deployment's latest revision when it starts (one small query beside a process
 * start), so a run never uses a record older than its dispatch, and a job of an undeployed
 * deployment fails with that reason. {@link #refresh()} (at start, and whenever the
 * deployments table commits) rebuilds the cron reconciler from the active revisions, enqueues
 * what their triggers owe, and deletes the waiting jobs of undeployed ones, so they run
 * nothing more. Cron bookkeeping is in the queue, keyed by trigger identity, so a refresh, a
 * restart or a second plane enqueues nothing twice. Webhook and event-subscription triggers
 * are stored in the records; this plane does not serve them.
 */
public final class DeploymentScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DeploymentScheduler.class);
  private final DeploymentStore store;
  private final Map<String, String> env;
  private final JobQueue queue;
  private final Dispatcher dispatcher;
  private volatile CronReconciler cron;

  private DeploymentScheduler(Builder b) {
    this.store = b.store;
    this.env = Map.copyOf(b.env);
    this.queue = new JobQueue(b.database, b.queueSettings);
    this.cron = new CronReconciler(queue, List.of(), CronReconciler.MAX_INTERVALS_PER_PASS_DEFAULT);
    JobObserver cronObserver = new JobObserver() {
      @Override
      public void claimed(Lease lease) {
        cron.claimed(lease);
      }

      @Override
      public void completed(Lease lease) {
        cron.completed(lease);
      }
    };
    HarnessJobHandler handler = new HarnessJobHandler(b.harness, this::runnable, RunObserver.NONE);
    this.dispatcher = b.dispatcherOptions.apply(Dispatcher.builder(b.database, handler)
        .queueSettings(b.queueSettings).observer(cronObserver)).build();
  }

  public static Builder builder(Database database, DeploymentStore store, WorkerHarness harness) {
    return new Builder(database, store, harness);
  }

  /** Starts consuming, then {@link #refresh()}es; returns the jobs that added. */
  public int start() {
    dispatcher.start();
    return refresh();
  }

  /**
   * Schedules the cron triggers of the active deployments and cancels the waiting jobs of
   * undeployed ones; returns how many jobs were enqueued.
   */
  public synchronized int refresh() {
    List<CronTrigger> triggers = new ArrayList<>();
    int cancelled = 0;
    for (DeploymentRevision r : store.currentAll()) {
      if (r.active()) {
        r.record().cronTriggers().forEach(t -> triggers.add(t.trigger(r.name())));
      } else {
        cancelled += queue.cancelReady(r.name());
      }
    }
    CronReconciler next = new CronReconciler(queue, triggers,
        CronReconciler.MAX_INTERVALS_PER_PASS_DEFAULT);
    cron = next;
    int added = next.reconcileAll();
    LOG.info("Deployments refreshed: {} cron triggers, {} jobs enqueued, {} waiting jobs of "
        + "undeployed deployments cancelled", triggers.size(), added, cancelled);
    return added;
  }

  /** The queue this plane consumes (listing and enqueueing jobs). */
  public JobQueue queue() {
    return queue;
  }

  /** The run-time deployment of the job's deployment, as its latest revision says. */
  private Optional<Deployment> runnable(String name) {
    Optional<DeploymentRevision> latest = store.current(name);
    if (latest.isPresent() && !latest.get().active()) {
      throw new IllegalStateException("Cannot run deployment " + name + ": revision "
          + latest.get().revision() + " undeployed it");
    }
    return latest.map(r -> runtime(r.record(), env));
  }

  /** The harness's part of {@code record}, its secrets resolved from {@code env}. */
  public static Deployment runtime(DeploymentRecord record, Map<String, String> env) {
    return new Deployment(record.name(), Path.of(record.jar()), record.workerClass(),
        record.config(), SecretReferences.resolve(record, env),
        io.verglas.workers.api.DataGrants.of(record.reads(), record.writes()), record.outputs(),
        record.timeout());
  }

  @Override
  public void close() {
    dispatcher.close();
    queue.close();
  }

  /** Builds a {@link DeploymentScheduler}; database, store and harness are required. */
  public static final class Builder {
    private final Database database;
    private final DeploymentStore store;
    private final WorkerHarness harness;
    private Map<String, String> env = System.getenv();
    private QueueSettings queueSettings = QueueSettings.defaults();
    private UnaryOperator<DispatcherSettings.Builder> dispatcherOptions = UnaryOperator.identity();

    private Builder(Database database, DeploymentStore store, WorkerHarness harness) {
      this.database = Objects.requireNonNull(database, "database");
      this.store = Objects.requireNonNull(store, "store");
      this.harness = Objects.requireNonNull(harness, "harness");
    }

    /** Where {@code env:} secret references resolve (default: this process's environment). */
    public Builder env(Map<String, String> value) {
      this.env = Objects.requireNonNull(value, "env");
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

    public DeploymentScheduler build() {
      return new DeploymentScheduler(this);
    }
  }
}
