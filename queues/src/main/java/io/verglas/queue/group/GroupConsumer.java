package io.verglas.queue.group;

import io.verglas.queue.Delivery;
import io.verglas.queue.QueueException;
import io.verglas.queue.log.SegmentLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One consumer of a group: leases segments and reads their messages. The caller handles the
 * messages and then {@link #ack}s (or {@link #release}s) the lease; a consumer that dies holding
 * a lease leaves it to expire, and the group hands its segments to another consumer.
 *
 * <p>A leased segment that is gone was deleted by retention (it lies at or below the high-water
 * mark, so no group needed it) and is skipped. A corrupt segment fails the read with a
 * {@link QueueException} naming the object; the lease is released for another attempt, never
 * acknowledged, so nothing is skipped silently. Segments delivered as often as the group
 * allows go to its {@link DeadLetters} queue instead of to the caller.
 */
public final class GroupConsumer {
  /** Leases dead-lettered within one poll at most, so a poll returns in bounded time. */
  private static final int MAX_DEAD_LETTERED_PER_POLL = 16;

  private final ConsumerGroup group;
  private final SegmentLog log;
  private final String consumer;
  private final DeadLetters deadLetters;

  public GroupConsumer(ConsumerGroup group, SegmentLog log, String consumer, DeadLetters deadLetters) {
    this.group = group;
    this.log = log;
    this.consumer = consumer;
    this.deadLetters = deadLetters;
  }

  public String id() {
    return consumer;
  }

  /** The next leased messages, or empty when the group has nothing to hand out now. */
  public Optional<LeasedMessages> poll() {
    for (int moved = 0; moved < MAX_DEAD_LETTERED_PER_POLL; moved++) {
      Optional<Lease> lease = group.claim(consumer);
      if (lease.isEmpty()) {
        return Optional.empty();
      }
      if (!deadLetters.due(lease.get())) {
        return Optional.of(read(lease.get()));
      }
      deadLetters.move(lease.get());
      group.ack(lease.get());
    }
    return Optional.empty();
  }

  private LeasedMessages read(Lease lease) {
    try {
      return new LeasedMessages(lease, messages(lease));
    } catch (QueueException e) {
      group.release(lease);
      throw e;
    }
  }

  private List<Delivery> messages(Lease lease) {
    List<Delivery> messages = new ArrayList<>();
    for (long sequence = lease.first(); sequence <= lease.last(); sequence++) {
      log.read(sequence).ifPresent(messages::addAll);
    }
    return messages;
  }

  public boolean ack(Lease lease) {
    return group.ack(lease);
  }

  public boolean release(Lease lease) {
    return group.release(lease);
  }

  public boolean extend(Lease lease) {
    return group.extend(lease);
  }
}
