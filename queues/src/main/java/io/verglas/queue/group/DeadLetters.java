package io.verglas.queue.group;

import io.verglas.queue.Delivery;
import io.verglas.queue.QueueException;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.log.QueueLayout;
import io.verglas.queue.log.SegmentLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * A consumer group's dead-letter queue, {@code <queue>.dead.<group>}: segments delivered
 * {@link GroupSettings#maxDeliveries()} times without an acknowledgement (every consumer that
 * took them died, timed out or released them) are copied there and acknowledged in the group
 * instead of being delivered again, so a poison message cannot hold a group back for ever.
 *
 * <p>Each message keeps its key, payload and headers, plus {@value #FROM}, {@value #GROUP},
 * {@value #POSITION} and {@value #DELIVERIES}. A segment that cannot be read (corrupt) becomes
 * one empty message naming it ({@value #SEGMENT}) and the reason ({@value #ERROR}). One batch is
 * published per source segment, then the lease is acknowledged: a consumer that dies in between
 * leaves the lease to expire and the next one copies it again, so a dead-letter queue is
 * at-least-once like any queue.
 */
public final class DeadLetters {
  public static final String FROM = "verglas-dead-letter-from";
  public static final String GROUP = "verglas-dead-letter-group";
  public static final String POSITION = "verglas-dead-letter-position";
  public static final String DELIVERIES = "verglas-dead-letter-deliveries";
  public static final String SEGMENT = "verglas-dead-letter-segment";
  public static final String ERROR = "verglas-dead-letter-error";

  private final SegmentLog log;
  private final String group;
  private final int maxDeliveries;
  private final String target;
  private final BiConsumer<String, List<QueueMessage>> publisher;

  /** @param publisher publishes a batch to a queue and returns once it is durable */
  public DeadLetters(SegmentLog log, String group, int maxDeliveries,
      BiConsumer<String, List<QueueMessage>> publisher) {
    this.log = log;
    this.group = group;
    this.maxDeliveries = maxDeliveries;
    this.target = queueOf(log.queue(), group);
    this.publisher = publisher;
  }

  /** The name of the dead-letter queue of {@code group} on {@code queue}. */
  public static String queueOf(String queue, String group) {
    String name = deadLetterPrefix(queue) + group;
    try {
      return QueueLayout.checkQueue(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot name the dead-letter queue of group " + group
          + " on queue " + queue + ": '" + name + "' is not a valid queue name (at most 128)", e);
    }
  }

  /** What the names of every dead-letter queue of {@code queue} start with. */
  public static String deadLetterPrefix(String queue) {
    return QueueLayout.checkQueue(queue) + ".dead.";
  }

  public String queue() {
    return target;
  }

  /** Whether the lease's segments were already delivered as often as the group allows. */
  boolean due(Lease lease) {
    return lease.deliveries() > maxDeliveries;
  }

  /** Copies the lease's segments to the dead-letter queue, one durable batch per segment. */
  void move(Lease lease) {
    for (long sequence = lease.first(); sequence <= lease.last(); sequence++) {
      List<QueueMessage> batch = copies(sequence, lease.deliveries() - 1);
      if (!batch.isEmpty()) {
        publisher.accept(target, batch);
      }
    }
  }

  private List<QueueMessage> copies(long sequence, int deliveries) {
    Optional<List<Delivery>> messages;
    try {
      messages = log.read(sequence);
    } catch (QueueException unreadable) {
      return List.of(new QueueMessage(null, new byte[0], Map.of(FROM, log.queue(), GROUP, group,
          DELIVERIES, Integer.toString(deliveries), SEGMENT, Long.toString(sequence),
          ERROR, String.valueOf(unreadable.getMessage()))));
    }
    List<QueueMessage> copies = new ArrayList<>();
    for (Delivery delivery : messages.orElse(List.of())) {
      Map<String, String> headers = new HashMap<>(delivery.message().headers());
      headers.put(FROM, log.queue());
      headers.put(GROUP, group);
      headers.put(POSITION, delivery.position().toString());
      headers.put(DELIVERIES, Integer.toString(deliveries));
      copies.add(new QueueMessage(delivery.message().key(), delivery.message().payload(), headers));
    }
    return copies;
  }
}
