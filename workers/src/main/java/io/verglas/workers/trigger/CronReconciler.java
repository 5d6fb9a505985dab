package io.verglas.workers.trigger;

import io.verglas.workers.schedule.JobObserver;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.JobStatus;
import io.verglas.workers.schedule.Lease;
import io.verglas.workers.schedule.NewJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Keeps the queue holding the jobs a set of cron triggers owe: the backlog their catch-up
 * policy asks for and the next open interval, whose job is due when the interval closes.
 *
 * <p>Design. No cursor of its own: the latest interval enqueued for a trigger, read from the
 * queue, is the trigger's progress, and every enqueue is idempotent on the interval's identity
 * ({@code deployment/trigger/intervalStart}). So reconciling is safe at any time, by any number
 * of schedulers, after any restart. It runs at {@link #reconcileAll()} (scheduler start) and,
 * as a {@link JobObserver}, when a trigger's job is claimed (the open interval closed: enqueue
 * the following one) and when it completes (sequential catch-up moves on). The planning is
 * {@link CronPlanner}'s; this class only reads the queue and enqueues.
 */
public final class CronReconciler implements JobObserver {
  public static final int MAX_INTERVALS_PER_PASS_DEFAULT = 1_000;
  private final JobQueue queue;
  private final Map<String, CronTrigger> triggers = new LinkedHashMap<>();
  private final int maxIntervalsPerPass;

  public CronReconciler(JobQueue queue, List<CronTrigger> triggers, int maxIntervalsPerPass) {
    this.queue = Objects.requireNonNull(queue, "queue");
    if (maxIntervalsPerPass < 1) {
      throw new IllegalArgumentException("Cannot set max intervals per pass to "
          + maxIntervalsPerPass + ": must be at least 1");
    }
    this.maxIntervalsPerPass = maxIntervalsPerPass;
    for (CronTrigger t : triggers) {
      if (this.triggers.putIfAbsent(t.key(), t) != null) {
        throw new IllegalArgumentException("Cannot schedule trigger " + t.key() + " twice");
      }
    }
  }

  /** Reconciles every trigger; returns how many jobs were newly enqueued. */
  public int reconcileAll() {
    int added = 0;
    for (CronTrigger t : triggers.values()) {
      added += reconcile(t);
    }
    return added;
  }

  /** Enqueues what {@code trigger} owes now; returns how many jobs were newly enqueued. */
  public synchronized int reconcile(CronTrigger trigger) {
    Optional<CronPlanner.Latest> latest = queue.latestInterval(trigger.key())
        .map(CronReconciler::latest);
    List<LogicalInterval> plan = CronPlanner.plan(trigger.schedule(), trigger.catchUp(),
        queue.now(), latest, maxIntervalsPerPass);
    List<NewJob> jobs = new ArrayList<>(plan.size());
    for (LogicalInterval interval : plan) {
      NewJob.Builder job = NewJob.builder(trigger.identity(interval), trigger.deployment(),
              CronTickEvents.tick(trigger, interval))
          .runAt(interval.end())
          .interval(trigger.key(), interval.start());
      if (trigger.maxAttempts() > 0) {
        job.maxAttempts(trigger.maxAttempts());
      }
      jobs.add(job.build());
    }
    return queue.enqueueAll(jobs);
  }

  private static CronPlanner.Latest latest(JobStatus status) {
    Objects.requireNonNull(status.intervalStart().orElse(null), "interval start");
    return new CronPlanner.Latest(status.intervalStart().get(), status.state() == JobState.DONE);
  }

  @Override
  public void claimed(Lease lease) {
    triggerOf(lease).ifPresent(this::reconcile);
  }

  @Override
  public void completed(Lease lease) {
    triggerOf(lease).ifPresent(this::reconcile);
  }

  private Optional<CronTrigger> triggerOf(Lease lease) {
    if (!CronTickEvents.TYPE.equals(lease.event().getType())) {
      return Optional.empty();
    }
    String identity = lease.identity();
    int cut = identity.lastIndexOf('/');
    return cut < 0 ? Optional.empty() : Optional.ofNullable(triggers.get(identity.substring(0, cut)));
  }
}
