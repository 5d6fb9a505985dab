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
 * acknowledged, so nothing is skipped silently.
 */
public final class GroupConsumer {
  private final ConsumerGroup group;
  private final SegmentLog log;
  private final String consumer;

  public GroupConsumer(ConsumerGroup group, SegmentLog log, String consumer) {
    this.group = group;
    this.log = log;
    this.consumer = consumer;
  }

  public String id() {
    return consumer;
  }

  /** The next leased messages, or empty when the group has nothing to hand out now. */
  public Optional<LeasedMessages> poll() {
    Optional<Lease> lease = group.claim(consumer);
    if (lease.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new LeasedMessages(lease.get(), read(lease.get())));
    } catch (QueueException e) {
      group.release(lease.get());
      throw e;
    }
  }

  private List<Delivery> read(Lease lease) {
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
