package io.verglas.workers.schedule;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue consumer: claims due jobs, runs each on a handler thread, completes or fails it,
 * and sleeps until the next thing can happen.
 *
 * <p>Design. One loop thread claims (up to the free handler slots) and otherwise waits on a
 * {@link Wakeup} until the earliest due time in the table ({@link JobQueue#nextDue()}: a ready
 * job's run time, a retry's backoff end, a lease expiry, a cron interval's end) or a signal,
 * whichever comes first. Signals come from PostgreSQL NOTIFY (every enqueue and every failed
 * attempt notifies, see {@link NotificationListener}) and from this process's handlers when a
 * slot frees up. There is no periodic queue poll: the only timer is derived from durable state,
 * and the idle bound ({@code maxIdle}) only caps one wait when the table is empty.
 *
 * <p>Connections. Claims and the timer query use one connection (the loop's); completions,
 * failures and heartbeats another, committed without waiting for the WAL flush (see
 * {@link JobQueue#forOutcomes}), so a handler finishing never holds up the next claim.
 *
 * <p>Claim pipelining. The handlers of a claim start while the claim's commit waits for its WAL
 * flush (the rows stay locked meanwhile); their outcomes are recorded only after the commit
 * returned, and dropped if it failed (a failed claim's generation was never live, so the
 * fencing would refuse them anyway). A run may thus start for a claim that a database crash
 * then loses: the job runs again, which at-least-once delivery allows. This takes one WAL
 * flush off the enqueue-to-start path.
 *
 * <p>Ownership. Each claim is a lease under a new generation; while the handler runs, a
 * heartbeat extends it every third of the lease duration. If the heartbeat or completion is
 * refused, another consumer owns the job now: this one logs and drops it (at-least-once runs).
 *
 * <p>Failures. A database error in the loop is logged and retried after a short pause; an
 * error completing a job leaves its lease to expire, so the job runs again. {@link #close()}
 * stops claiming, waits {@code shutdownGrace} for running handlers and leaves any still running
 * to their lease expiry. Memory: at most {@code concurrency} leases are held.
 */
public final class Dispatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  private static final long ERROR_PAUSE_MILLIS = 500;
  private static final long CONTENDED_PAUSE_MILLIS = 5;
  private final DispatcherSettings settings;
  private final JobQueue queue;
  private final JobQueue outcomes;
  private final Wakeup wakeup = new Wakeup();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ExecutorService handlers;
  private final ScheduledExecutorService heartbeats;
  private final Thread loop;
  private NotificationListener listener;
  private volatile boolean running;

  Dispatcher(DispatcherSettings settings) {
    this.settings = settings;
    this.queue = new JobQueue(settings.database(), settings.queueSettings());
    this.outcomes = JobQueue.forOutcomes(settings.database(), settings.queueSettings());
    this.handlers = Executors.newFixedThreadPool(settings.concurrency(),
        named("verglas-dispatch-" + settings.owner()));
    this.heartbeats = Executors.newSingleThreadScheduledExecutor(
        named("verglas-heartbeat-" + settings.owner()));
    this.loop = new Thread(this::loop, "verglas-dispatcher-" + settings.owner());
  }

  public static DispatcherSettings.Builder builder(Database database, JobHandler handler) {
    return DispatcherSettings.builder(database, handler);
  }

  /** Applies the schema, starts listening and claiming. */
  public synchronized Dispatcher start() {
    if (running) {
      throw new IllegalStateException("Cannot start dispatcher " + settings.owner()
          + ": already started");
    }
    try {
      settings.database().migrate();
      listener = new NotificationListener(settings.database(), wakeup);
    } catch (SQLException e) {
      throw new SchedulerException("Cannot start dispatcher on " + settings.database() + ": "
          + e.getMessage(), e);
    }
    running = true;
    loop.start();
    return this;
  }

  public String owner() { return settings.owner(); }

  /** Leases currently being handled by this dispatcher. */
  public int inFlight() { return inFlight.get(); }

  private void loop() {
    while (running) {
      try {
        int free = settings.concurrency() - inFlight.get();
        int want = Math.min(free, settings.claimBatch());
        List<Lease> leases = want > 0 ? claim(want) : List.of();
        if (want > 0 && leases.size() == want) {
          continue; // more may be due
        }
        wakeup.await(waitMillis(want > 0, leases.isEmpty()));
      } catch (SchedulerException e) {
        LOG.warn("Dispatcher {}: {}", settings.owner(), e.getMessage());
        pause(ERROR_PAUSE_MILLIS);
      } catch (RuntimeException e) {
        LOG.error("Dispatcher {}: unexpected failure; claiming again after a pause",
            settings.owner(), e);
        pause(ERROR_PAUSE_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private long waitMillis(boolean hasSlots, boolean claimedNone) {
    long idle = settings.maxIdle().toMillis();
    if (!hasSlots) {
      return idle; // a handler finishing signals
    }
    Optional<Instant> next = queue.nextDue();
    if (next.isEmpty()) {
      return idle;
    }
    long millis = Duration.between(queue.now(), next.get()).toMillis() + 1;
    if (millis <= 0) {
      // due rows exist but were locked by a competing claim: let it finish
      return claimedNone ? CONTENDED_PAUSE_MILLIS : 0;
    }
    return Math.min(millis, idle);
  }

  /** Claims, starting the handlers during the claim's commit; observers hear after it. */
  private List<Lease> claim(int want) {
    CompletableFuture<Boolean> durable = new CompletableFuture<>();
    try {
      List<Lease> leases = queue.claim(settings.owner(), want,
          started -> started.forEach(lease -> begin(lease, durable)));
      durable.complete(true);
      for (Lease lease : leases) {
        settings.observers().forEach(o -> notifyQuietly(() -> o.claimed(lease), lease));
      }
      return leases;
    } catch (RuntimeException e) {
      durable.complete(false);
      throw e;
    }
  }

  private void begin(Lease lease, CompletableFuture<Boolean> durable) {
    inFlight.incrementAndGet();
    handlers.execute(() -> execute(lease, durable));
  }

  private void execute(Lease lease, CompletableFuture<Boolean> durable) {
    long every = Math.max(1, settings.queueSettings().leaseDuration().toMillis() / 3);
    ScheduledFuture<?> beat = heartbeats.scheduleAtFixedRate(() -> heartbeat(lease), every,
        every, TimeUnit.MILLISECONDS);
    Throwable failure = null;
    try {
      settings.handler().handle(lease);
    } catch (Throwable t) {
      failure = t;
    } finally {
      beat.cancel(false);
    }
    try {
      if (durable.join()) {
        finish(lease, failure);
      } else {
        LOG.warn("Run of {} generation {} ended, but its claim never committed: outcome dropped",
            lease.identity(), lease.generation());
      }
    } catch (SchedulerException e) {
      LOG.warn("Dispatcher {}: {} (the lease will expire and the job run again)",
          settings.owner(), e.getMessage());
    } finally {
      inFlight.decrementAndGet();
      wakeup.signal();
    }
  }

  private void finish(Lease lease, Throwable failure) {
    if (failure == null) {
      if (outcomes.complete(lease)) {
        settings.observers().forEach(o -> notifyQuietly(() -> o.completed(lease), lease));
      } else {
        LOG.warn("Completion of {} generation {} refused: the lease was taken over",
            lease.identity(), lease.generation());
      }
      return;
    }
    Optional<JobState> state = outcomes.fail(lease, String.valueOf(failure));
    LOG.info("Job {} attempt {} failed ({}): now {}", lease.identity(), lease.attempt(),
        failure, state.map(Enum::name).orElse("fenced"));
  }

  private void heartbeat(Lease lease) {
    try {
      if (!outcomes.heartbeat(lease)) {
        LOG.warn("Heartbeat of {} generation {} refused: the lease was taken over",
            lease.identity(), lease.generation());
      }
    } catch (SchedulerException e) {
      LOG.warn("Dispatcher {}: {}", settings.owner(), e.getMessage());
    }
  }

  private void notifyQuietly(Runnable call, Lease lease) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.warn("Observer failed on job {}: {}", lease.identity(), e.toString());
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.concurrent.ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public synchronized void close() {
    boolean wasRunning = running;
    running = false;
    wakeup.signal();
    try {
      if (wasRunning) {
        loop.join(5_000);
      }
      handlers.shutdown();
      handlers.awaitTermination(settings.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    handlers.shutdownNow();
    heartbeats.shutdownNow();
    if (listener != null) {
      listener.close();
    }
    queue.close();
    outcomes.close();
  }
}
