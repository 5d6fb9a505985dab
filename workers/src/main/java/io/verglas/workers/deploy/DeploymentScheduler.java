package io.verglas.workers.deploy;

import io.verglas.workers.WorkerScheduler;
import io.verglas.workers.harness.Deployment;
import io.verglas.workers.harness.HarnessJobHandler;
import io.verglas.workers.harness.RunObserver;
import io.verglas.workers.harness.RunTarget;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.PermanentJobFailure;
import io.verglas.workers.trigger.CronTrigger;
import io.verglas.workers.webhook.WebhookTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local plane of stored deployments: a {@link WorkerScheduler} whose dispatcher runs every
 * job through the {@link WorkerHarness}, with the deployment of each job read from the
 * {@link DeploymentStore}, and whose cron triggers are those of the active deployments.
 *
 * <p>Design. The store is the truth and this class holds nothing it cannot rebuild: every job
 * reads its deployment's latest revision when it starts (one small query beside a process
 * start), so a run never uses a record older than its dispatch, and a job of an undeployed
 * deployment fails with that reason; its secrets are resolved then too, so a rotated file secret
 * is what the next run reads, and one that does not resolve fails that run with the reference
 * named in its log events. Each active deployment's {@code scaling.maxConcurrency} is its
 * concurrency limit in the queue ({@link JobQueue#limitConcurrency}), set by every refresh. {@link #refresh()} (at start, and whenever the
 * deployments table commits) replaces the scheduler's cron triggers with those of the active
 * revisions, enqueues what they owe, and deletes the waiting jobs of undeployed deployments,
 * so those run nothing more. Cron bookkeeping is in the queue, keyed by trigger identity, so a refresh, a
 * restart or a second plane enqueues nothing twice. A refresh also rebuilds the
 * {@link ServedTriggers} (webhook targets, event subscriptions) of the active revisions, read
 * without I/O by {@link #webhookTargets} and handed to the {@link Builder#onRefresh} listener,
 * which serves them (the local stack: its admin route and change feed subscriber).
 */
public final class DeploymentScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DeploymentScheduler.class);
  private final DeploymentStore store;
  private final Map<String, String> env;
  private final WorkerScheduler scheduler;
  private final Consumer<ServedTriggers> onRefresh;
  private volatile ServedTriggers served = ServedTriggers.NONE;

  private DeploymentScheduler(Builder b) {
    this.store = b.store;
    this.env = Map.copyOf(b.env);
    this.onRefresh = b.onRefresh;
    HarnessJobHandler handler = HarnessJobHandler.ofTargets(b.harness, this::runnable,
        RunObserver.NONE);
    this.scheduler = b.options.apply(WorkerScheduler.builder(b.database, handler)).build();
  }

  public static Builder builder(Database database, DeploymentStore store, WorkerHarness harness) {
    return new Builder(database, store, harness);
  }

  /** Starts consuming, then {@link #refresh()}es; returns the jobs that added. */
  public int start() {
    scheduler.start();
    return refresh();
  }

  /**
   * Limits each active deployment's runs at once to its {@code scaling.maxConcurrency} (on
   * every plane sharing the database), schedules the cron triggers of the active deployments
   * and cancels the waiting jobs of undeployed ones; returns how many jobs were enqueued.
   */
  public synchronized int refresh() {
    List<CronTrigger> triggers = new ArrayList<>();
    List<DeploymentRevision> active = new ArrayList<>();
    Map<String, Integer> limits = new LinkedHashMap<>();
    List<String> undeployed = new ArrayList<>();
    int cancelled = 0;
    for (DeploymentRevision r : store.currentAll()) {
      if (r.active()) {
        active.add(r);
        limits.put(r.name(), r.record().maxConcurrency());
        r.record().cronTriggers().forEach(t -> triggers.add(t.trigger(r.name())));
      } else {
        undeployed.add(r.name());
        cancelled += scheduler.queue().cancelReady(r.name());
      }
    }
    scheduler.queue().limitConcurrency(limits); // before enqueueing: every job is limited
    scheduler.queue().unlimitConcurrency(undeployed);
    int added = scheduler.schedule(triggers);
    ServedTriggers next = ServedTriggers.of(active, env);
    onRefresh.accept(next); // before the webhook lookup changes: a deployment answering its
    served = next;          // webhooks has its event subscriptions followed already
    LOG.info("Deployments refreshed: {} cron triggers, {} jobs enqueued, {} waiting jobs of "
        + "undeployed deployments cancelled, {} webhook routes, {} event subscriptions",
        triggers.size(), added, cancelled, next.webhookRoutes(),
        next.subscriptions().size());
    return added;
  }

  /**
   * The webhook triggers of an active deployment, as the last refresh saw them (no I/O; their
   * secrets are read when a request is verified).
   */
  public List<WebhookTarget> webhookTargets(String deployment) {
    return served.webhooks(deployment);
  }

  /** The local dispatcher: {@link Dispatcher#submit} runs a due job at once in this process. */
  public Dispatcher dispatcher() {
    return scheduler.dispatcher();
  }

  /** The queue this plane consumes (listing and enqueueing jobs). */
  public JobQueue queue() {
    return scheduler.queue();
  }

  /**
   * The run-time deployment of the job's deployment, as its latest revision says, its secrets
   * read as the run starts.
   */
  private Optional<RunTarget> runnable(String name) {
    Optional<DeploymentRevision> latest = store.current(name);
    if (latest.isPresent() && !latest.get().active()) {
      throw new PermanentJobFailure("Cannot run deployment " + name + ": revision "
          + latest.get().revision() + " undeployed it");
    }
    return latest.map(r -> target(r.record(), env));
  }

  /** The harness's part of {@code record}, its secrets resolved from {@code env} at each run. */
  public static RunTarget target(DeploymentRecord record, Map<String, String> env) {
    return new RunTarget(deployment(record, Map.of()), SecretReferences.source(record, env));
  }

  /** The harness's part of {@code record}, its secrets resolved from {@code env}. */
  public static Deployment runtime(DeploymentRecord record, Map<String, String> env) {
    return deployment(record, SecretReferences.resolve(record, env));
  }

  private static Deployment deployment(DeploymentRecord record, Map<String, String> secrets) {
    return new Deployment(record.name(), Path.of(record.jar()), record.workerClass(),
        record.config(), secrets, record.grants(), record.outputs(), record.timeout());
  }

  @Override
  public void close() {
    scheduler.close();
  }

  /** Builds a {@link DeploymentScheduler}; database, store and harness are required. */
  public static final class Builder {
    private final Database database;
    private final DeploymentStore store;
    private final WorkerHarness harness;
    private Map<String, String> env = System.getenv();
    private UnaryOperator<WorkerScheduler.Builder> options = UnaryOperator.identity();
    private Consumer<ServedTriggers> onRefresh = served -> { };

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

    /** Options of the scheduler (queue settings, dispatcher options). */
    public Builder scheduler(UnaryOperator<WorkerScheduler.Builder> value) {
      this.options = Objects.requireNonNull(value, "scheduler");
      return this;
    }

    /**
     * Called by every {@link #refresh()} with the active revisions' webhook and event
     * triggers, on the refreshing thread, before {@link #webhookTargets} answers from them
     * (nothing by default).
     */
    public Builder onRefresh(Consumer<ServedTriggers> value) {
      this.onRefresh = Objects.requireNonNull(value, "onRefresh");
      return this;
    }

    public DeploymentScheduler build() {
      return new DeploymentScheduler(this);
    }
  }
}
