package io.verglas.workers.schedule;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * <p>Design. One loop thread claims (up to {@code maxLeases} held at once: running, or waiting
 * for one of the {@code concurrency} handler threads). With leases to spare it then waits, in
 * {@code PGConnection.getNotifications(timeout)} on the connection it claims on (LISTEN), for
 * a notification (every enqueue and every failed attempt notifies) or the earliest due time in
 * the table ({@link JobQueue#nextDue()}: a ready job's run time, a retry's backoff end, a lease
 * expiry, a cron interval's end), whichever comes first. With every lease held it waits on a
 * {@link Wakeup} that a finishing run signals. There is no periodic queue poll: the only timer
 * is derived from durable state, and the idle bound ({@code maxIdle}) only caps one wait when
 * the table is empty (and bounds how long a dropped connection goes unnoticed: a lost
 * notification is caught by reading the queue after every wait).
 *
 * <p>Connections. Claims and the timer query use one connection (the loop's); completions,
 * failures and heartbeats another, committed without waiting for the WAL flush (see
 * {@link JobQueue#forOutcomes}), so a handler finishing never holds up the next claim.
 * Completions are written in batches by an {@link OutcomeWriter}.
 *
 * <p>Claim pipelining. The handlers of a claim start while the claim's commit waits for its WAL
 * flush (the rows stay locked meanwhile); their outcomes are recorded only after the commit
 * returned, and dropped if it failed (a failed claim's generation was never live, so the
 * fencing would refuse them anyway). A run may thus start for a claim that a database crash
 * then loses: the job runs again, which at-least-once delivery allows. This takes one WAL
 * flush off the enqueue-to-start path.
 *
 * <p>Ownership. Each claim is a lease under a new generation; a heartbeat extends it every
 * third of the lease duration, from the claim until the outcome. If the heartbeat or completion is
 * refused, another consumer owns the job now: this one logs and drops it (at-least-once runs).
 *
 * <p>Failures. A database error in the loop is logged and retried after a short pause; an
 * error completing a job leaves its lease to expire, so the job runs again. {@link #close()}
 * stops claiming, waits {@code shutdownGrace} for running handlers and leaves any still running
 * to their lease expiry. Memory: at most {@code maxLeases} leases are held.
 *
 * <p>Limits. A deployment's concurrency limit ({@link JobQueue#limitConcurrency}) bounds its
 * live leases across every dispatcher on the database: claims and submits lease its jobs only
 * while it has room, and its other due jobs wait (ready, not failed) out of the timer until a
 * run of it finishes, whose completion notifies.
 */
public final class Dispatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  private static final long ERROR_PAUSE_MILLIS = 500;
  private static final long CONTENDED_PAUSE_MILLIS = 5;
  private final DispatcherSettings settings;
  private final JobQueue queue;
  private final JobQueue outcomes;
  private final JobQueue submits;
  private final OutcomeWriter writer;
  private final Wakeup wakeup = new Wakeup();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ExecutorService handlers;
  private final ScheduledExecutorService heartbeats;
  private final Thread loop;
  private volatile boolean running;

  Dispatcher(DispatcherSettings settings) {
    this.settings = settings;
    this.queue = JobQueue.forConsumer(settings.database(), settings.queueSettings());
    this.outcomes = JobQueue.forOutcomes(settings.database(), settings.queueSettings());
    this.writer = new OutcomeWriter(outcomes, settings.owner());
    this.submits = new JobQueue(settings.database(), settings.queueSettings());
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
    } catch (SQLException e) {
      throw new SchedulerException("Cannot start dispatcher on " + settings.database() + ": "
          + e.getMessage(), e);
    }
    running = true;
    loop.start();
    return this;
  }

  public String owner() { return settings.owner(); }

  /**
   * Enqueues {@code job} from this process and, if it is due and this dispatcher holds a lease
   * to spare, runs it here at once: the row goes in already leased to this dispatcher
   * ({@link JobQueue#enqueueLeased}), with no notification round trip and no claim between the
   * enqueue and the run. Otherwise (or when the job's deployment is at its concurrency limit)
   * it is an ordinary enqueue. True if the job was new.
   */
  public boolean submit(NewJob job) {
    boolean due = job.runAt().map(at -> !at.isAfter(queue.now())).orElse(true);
    if (!running || !due || inFlight.get() >= settings.maxLeases()) {
      return submits.enqueue(job);
    }
    Submission submitted = submits.enqueueLeased(job, settings.owner());
    submitted.lease().ifPresent(l -> {
      begin(l, CompletableFuture.completedFuture(true));
      settings.observers().forEach(o -> notifyQuietly(() -> o.claimed(l), l));
    });
    return submitted.added();
  }

  /** Leases currently being handled by this dispatcher. */
  public int inFlight() { return inFlight.get(); }

  private void loop() {
    while (running) {
      try {
        int want = settings.maxLeases() - inFlight.get();
        List<Lease> leases = want > 0 ? claim(want) : List.of();
        if (want > 0 && leases.size() == want) {
          continue; // more may be due
        }
        if (leases.size() < want) {
          queue.awaitNotification(waitMillis(leases.isEmpty())); // woken by enqueues
        } else {
          wakeup.await(settings.maxIdle().toMillis()); // every lease held: a finishing run signals
        }
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

  private long waitMillis(boolean claimedNone) {
    long idle = settings.maxIdle().toMillis();
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
    long every = Math.max(1, settings.queueSettings().leaseDuration().toMillis() / 3);
    ScheduledFuture<?> beat = heartbeats.scheduleAtFixedRate(() -> heartbeat(lease), every,
        every, TimeUnit.MILLISECONDS);
    handlers.execute(() -> execute(lease, durable, beat));
  }

  private void execute(Lease lease, CompletableFuture<Boolean> durable, ScheduledFuture<?> beat) {
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
    boolean counted;
    try {
      counted = writer.record(lease, failure).join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof SchedulerException se ? se : new SchedulerException(
          "Cannot record outcome of " + lease.identity() + ": " + cause, cause);
    }
    if (!counted) {
      LOG.warn("Outcome of {} generation {} refused: the lease was taken over",
          lease.identity(), lease.generation());
    } else if (failure == null) {
      settings.observers().forEach(o -> notifyQuietly(() -> o.completed(lease), lease));
    }
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

  /** Ends the loop's wait for notifications; a second try reconnects a broken connection. */
  private void wakeLoop() {
    for (int attempt = 1; attempt <= 2; attempt++) {
      try {
        outcomes.wakeConsumers();
        return;
      } catch (SchedulerException e) {
        LOG.warn("Dispatcher {}: {}", settings.owner(), e.getMessage());
      }
    }
  }

  @Override
  public synchronized void close() {
    boolean wasRunning = running;
    running = false;
    wakeup.signal();
    wakeLoop();
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
    writer.close();
    queue.close();
    outcomes.close();
    submits.close();
  }
}
