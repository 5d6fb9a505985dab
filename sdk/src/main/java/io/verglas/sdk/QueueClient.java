package io.verglas.sdk;

import io.verglas.queue.Delivery;
import io.verglas.queue.QueueException;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.QueuePosition;
import io.verglas.queue.QueueSettings;
import io.verglas.queue.Queues;
import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.group.LeasedMessages;
import io.verglas.store.ObjectStoreEndpoint;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The queue verbs (seed §7.8): {@link #publish} and {@link #consume}, at-least-once delivery.
 *
 * <p>Design. The local plane's queue is a segment log in the bucket ({@code verglas-queues}):
 * this client runs it in-process against the object-store endpoint it is given (the cache node
 * in {@code ./verglas local}), so publishing and consuming need no queue server and the SDK does
 * not depend on the worker platform. Positions and leases are objects in the same bucket,
 * changed by conditional writes, so several processes share a queue safely. The cloud plane's
 * managed queue would sit behind the same two verbs.
 *
 * <p>Consumers must be idempotent: a message is delivered again when its handler failed, when
 * its consumer died before acknowledging, or when the acknowledgement was lost. The delivery's
 * position (or the publisher's key) identifies a message across deliveries.
 */
public final class QueueClient implements AutoCloseable {
  /** Handles one leased batch of messages; throwing hands them back for redelivery. */
  @FunctionalInterface
  public interface Handler {
    void handle(List<Delivery> messages) throws Exception;
  }

  private final S3Client s3;
  private final boolean ownsClient;
  private final Queues queues;
  private final String consumerId;

  private QueueClient(S3Client s3, boolean ownsClient, String bucket, QueueSettings settings) {
    this.s3 = s3;
    this.ownsClient = ownsClient;
    this.queues = new Queues(s3, bucket, settings);
    this.consumerId = ManagementFactory.getRuntimeMXBean().getName() + "/"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Queues in the endpoint's bucket, with default bounds; closes its S3 client on close. */
  public static QueueClient connect(ObjectStoreEndpoint endpoint) {
    return new QueueClient(endpoint.newClient(), true, endpoint.bucket(), QueueSettings.defaults());
  }

  /** Queues in {@code bucket} through the caller's S3 client (left open on close). */
  public static QueueClient over(S3Client s3, String bucket, QueueSettings settings) {
    return new QueueClient(s3, false, bucket, settings);
  }

  /**
   * Publishes the messages as one batch, in order, and returns the first one's position once
   * they are durable in the queue's log. Concurrent calls are written together.
   */
  public QueuePosition publish(String queue, List<QueueMessage> messages) {
    return queues.publish(queue, messages);
  }

  /**
   * Leases the next messages of {@code group} on {@code queue}, runs the handler on them and
   * acknowledges them; returns how many it handled (0 when there was nothing to lease). When
   * the handler throws, the lease is given back for immediate redelivery and the failure is
   * rethrown as a {@link QueueException}. A consumer killed in the handler leaves the lease to
   * expire (the group's lease timeout), then the messages go to another consumer.
   */
  public int consume(String queue, String group, Handler handler) {
    GroupConsumer consumer = queues.consumer(queue, group, consumerId);
    Optional<LeasedMessages> leased = consumer.poll();
    if (leased.isEmpty()) {
      return 0;
    }
    try {
      handler.handle(leased.get().messages());
    } catch (Exception e) {
      consumer.release(leased.get().lease());
      throw new QueueException("Cannot consume queue " + queue + " in group " + group
          + ": the handler failed on " + leased.get().messages().size() + " messages: " + e, e);
    }
    consumer.ack(leased.get().lease());
    return leased.get().messages().size();
  }

  /** This client's consumer id in leases: JVM name and a random suffix. */
  public String consumerId() {
    return consumerId;
  }

  @Override
  public void close() {
    queues.close();
    if (ownsClient) {
      s3.close();
    }
  }
}
