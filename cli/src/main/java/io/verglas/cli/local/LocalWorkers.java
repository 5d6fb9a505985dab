package io.verglas.cli.local;

import io.verglas.access.ScopedTokens;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.TableIdentifiers;
import io.verglas.workers.deploy.DeploymentScheduler;
import io.verglas.workers.deploy.DeploymentStore;
import io.verglas.workers.harness.HarnessSettings;
import io.verglas.workers.harness.WorkerEndpoints;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.subscribe.FeedPositions;
import io.verglas.workers.webhook.WebhookEndpoint;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker routes of the local stack: when the scheduler's PostgreSQL database is reachable
 * at start, a {@link DeploymentScheduler} runs the stored deployments (cron triggers, manual
 * runs) through the worker harness, the admin port serves their webhook triggers
 * ({@link AdminWebhooks}, jobs submitted to the local dispatcher) and one change feed
 * subscriber their event triggers ({@link LocalSubscriptions}), both rebuilt by every refresh
 * from the active revisions; otherwise workers are off, {@link #status()} says why and the
 * webhook route answers 503 with that reason.
 *
 * <p>The deployments table's commits arrive on the change feed; each makes the scheduler
 * {@link DeploymentScheduler#refresh() refresh} on a thread of its own (never the feed's), and
 * commits that arrive during a refresh fold into one more refresh.
 */
final class LocalWorkers implements AutoCloseable {
  /** How long a run's commit may wait for the materializer. */
  static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(60);
  private static final Logger LOG = LoggerFactory.getLogger(LocalWorkers.class);
  private static final List<String> DEPLOYMENTS = TableIdentifiers.levels(DeploymentStore.TABLE);

  private final String status;
  private final EndpointsFile.WorkersDatabase database;
  private final List<AutoCloseable> parts;
  private final DeploymentScheduler scheduler;
  private final ExecutorService refresher;
  private final AtomicBoolean refreshPending = new AtomicBoolean();

  private LocalWorkers(String status, EndpointsFile.WorkersDatabase database,
      DeploymentScheduler scheduler, List<AutoCloseable> parts) {
    this.status = status;
    this.database = database;
    this.scheduler = scheduler;
    this.parts = parts;
    this.refresher = scheduler == null ? null : new ThreadPoolExecutor(1, 1, 0,
        TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
          Thread thread = new Thread(runnable, "verglas-deployments-refresh");
          thread.setDaemon(true);
          return thread;
        });
  }

  /**
   * Starts the scheduler if the database is reachable; else workers are off, with the reason.
   *
   * @param webhooks the admin port's webhook route, served from here on (or told why not)
   * @param tokens mints each run's scoped token (see {@link WorkerHarness})
   * @param feedEnd the change feed's position after its last event
   */
  static LocalWorkers start(LocalConfig config, EndpointsFile endpoints, ScopedTokens tokens,
      AdminWebhooks webhooks, LongSupplier feedEnd) {
    if (config.workersJdbcUrl() == null) {
      return off("off (local.workers-jdbc-url is none)", webhooks);
    }
    Database database = Database.of(config.workersJdbcUrl(), null, null, config.workersSchema());
    try {
      database.migrate();
    } catch (SQLException | RuntimeException e) {
      return off("off: cannot reach the scheduler's PostgreSQL at " + config.workersJdbcUrl()
          + " (" + e.getMessage() + "); deploy, trigger and runs need it", webhooks);
    }
    List<AutoCloseable> parts = new ArrayList<>();
    WorkerEndpoints stack = endpoints.workerEndpoints(COMMIT_TIMEOUT);
    WorkerHarness harness = new WorkerHarness(stack, HarnessSettings.defaults(), tokens);
    parts.add(harness);
    VerglasClient client = stack.client();
    parts.add(client);
    AtomicReference<LocalSubscriptions> subscriptions = new AtomicReference<>();
    DeploymentScheduler scheduler = DeploymentScheduler.builder(database,
        new DeploymentStore(client, Clock.systemUTC()), harness)
        .onRefresh(served -> subscriptions.get().update(served.subscriptions())).build();
    parts.add(scheduler);
    subscriptions.set(new LocalSubscriptions(endpoints.eventsUri(), endpoints.adminToken(),
        new FeedPositions(database), scheduler.dispatcher()::submit, feedEnd));
    parts.add(subscriptions.get()); // closes before the scheduler
    LocalWorkers workers = new LocalWorkers("on: scheduler on " + database,
        new EndpointsFile.WorkersDatabase(config.workersJdbcUrl(), config.workersSchema()),
        scheduler, parts);
    try {
      scheduler.start();
    } catch (RuntimeException e) { // e.g. the deployments could not be read: the stack runs on
      workers.close();
      return off("off: cannot start the scheduler on " + database + ": " + e.getMessage(),
          webhooks);
    }
    webhooks.serve(new WebhookEndpoint(webhooks.settings(), scheduler::webhookTargets,
        scheduler.dispatcher()::submit));
    return workers;
  }

  private static LocalWorkers off(String reason, AdminWebhooks webhooks) {
    LOG.warn("Workers {}", reason);
    webhooks.off(reason);
    return new LocalWorkers(reason, null, null, List.of());
  }

  /** "on: ..." or "off: why". */
  String status() {
    return status;
  }

  /** The scheduler's queue, when workers are on. */
  Optional<EndpointsFile.WorkersDatabase> database() {
    return Optional.ofNullable(database);
  }

  /** A commit of the deployments table makes the scheduler refresh (off the caller's thread). */
  void onEvent(FeedEvent event) {
    if (scheduler != null && event instanceof CatalogEvent commit
        && commit.table().equals(DEPLOYMENTS) && refreshPending.compareAndSet(false, true)) {
      refresher.execute(this::refresh);
    }
  }

  private void refresh() {
    refreshPending.set(false);
    try {
      scheduler.refresh();
    } catch (RuntimeException e) {
      LOG.warn("Cannot refresh the deployments: {}", e.getMessage());
    }
  }

  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).close();
      } catch (Exception e) {
        LOG.warn("Error while stopping {}: {}", parts.get(i), e.toString());
      }
    }
  }
}
