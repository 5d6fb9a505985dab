package io.verglas.queue.group;

import io.verglas.queue.QueueException;
import io.verglas.queue.log.QueueLayout;
import io.verglas.queue.log.QueueObjects;
import io.verglas.queue.log.SegmentLog;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * One consumer group of one queue, its state an object ({@code _queues.groups/<queue>/<group>
 * .json}) changed only by compare-and-swap.
 *
 * <p>Design. Why an object and not PostgreSQL: a queue is then wholly in the bucket (log,
 * positions, high-water mark), usable wherever the bucket is (an SDK process, a worker, the
 * local stack without a database), and the state is small (bounded by
 * {@link GroupSettings#maxLeases()}): one GET and one conditional PUT per claim or ack. Every
 * operation reads the state with its ETag, plans with the pure {@link LeasePlanner}, and writes
 * with {@code If-Match} (or {@code If-None-Match: *} for a new group); on a lost race it reads
 * again and replans, so concurrent consumers of a group never both win a lease. Leases cover
 * whole segments (a publish batch or more): at-least-once delivery per segment, a dead
 * consumer's segments redelivered after the lease timeout under a new generation.
 *
 * <p>A new group starts after the queue's high-water mark: at the oldest segment retention kept.
 */
public final class ConsumerGroup {
  private static final int MAX_ATTEMPTS = 200;
  private final QueueObjects objects;
  private final SegmentLog log;
  private final String group;
  private final String key;
  private final GroupSettings settings;

  public ConsumerGroup(QueueObjects objects, QueueLayout layout, SegmentLog log, String group,
      GroupSettings settings) {
    this.objects = objects;
    this.log = log;
    this.group = QueueLayout.checkGroup(group);
    this.key = layout.groupKey(log.queue(), group);
    this.settings = settings;
  }

  public String name() {
    return group;
  }

  /** The group's state as stored now (a new group's starting state if it has none yet). */
  public GroupState state() {
    return objects.get(key).map(v -> GroupStateCodec.fromJson(v.bytes()))
        .orElseGet(() -> GroupState.startingAfter(log.highWater()));
  }

  /** Leases the next segments for {@code consumer}: an expired lease first, else new ones. */
  public Optional<Lease> claim(String consumer) {
    long leaseMillis = settings.leaseTimeout().toMillis();
    return update("claim", state -> {
      long now = settings.clock().millis();
      Optional<LeasePlanner.Plan<Lease>> plan =
          LeasePlanner.takeExpired(state, consumer, now, leaseMillis);
      if (plan.isEmpty()) {
        List<QueueObjects.Listed> next =
            log.segmentsAfter(state.tail(), settings.maxSegmentsPerLease());
        long last = next.isEmpty() ? -1 : log.sequenceOf(next.get(next.size() - 1));
        plan = LeasePlanner.takeNew(state, consumer, last, now, leaseMillis,
            settings.maxLeases());
      }
      return plan.map(p -> new LeasePlanner.Plan<>(p.next(), Optional.of(p.result())))
          .orElse(new LeasePlanner.Plan<>(state, Optional.empty()));
    });
  }

  /** Acknowledges the lease's segments; false if the lease was lost (taken over, fenced). */
  public boolean ack(Lease lease) {
    return update("acknowledge", state -> LeasePlanner.ack(state, lease));
  }

  /** Gives the lease back for immediate redelivery; false if it was already lost. */
  public boolean release(Lease lease) {
    return update("release", state -> LeasePlanner.reschedule(state, lease,
        settings.clock().millis()));
  }

  /** Extends the lease by the lease timeout from now; false if it was already lost. */
  public boolean extend(Lease lease) {
    return update("extend", state -> LeasePlanner.reschedule(state, lease,
        settings.clock().millis() + settings.leaseTimeout().toMillis()));
  }

  private <T> T update(String verb, Function<GroupState, LeasePlanner.Plan<T>> planner) {
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      Optional<QueueObjects.Versioned> current = objects.get(key);
      GroupState state = current.map(v -> GroupStateCodec.fromJson(v.bytes()))
          .orElseGet(() -> GroupState.startingAfter(log.highWater()));
      LeasePlanner.Plan<T> plan = planner.apply(state);
      if (plan.next().equals(state)) {
        return plan.result();
      }
      String etag = current.map(QueueObjects.Versioned::etag).orElse(null);
      if (objects.swap(key, etag, GroupStateCodec.toJson(plan.next()))) {
        return plan.result();
      }
      backOff(attempt);
    }
    throw new QueueException("Cannot " + verb + " in consumer group " + group + " of queue "
        + log.queue() + ": lost " + MAX_ATTEMPTS + " concurrent updates in a row");
  }

  private static void backOff(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L + Math.min(attempt, 20)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueueException("Cannot update consumer group: interrupted", e);
    }
  }
}
