package io.verglas.queue;

import io.verglas.queue.group.ConsumerGroup;
import io.verglas.queue.group.DeadLetters;
import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.log.MessageBatchCodec;
import io.verglas.queue.log.QueueLayout;
import io.verglas.queue.log.QueueObjects;
import io.verglas.queue.log.SegmentLog;
import io.verglas.queue.publish.QueuePublisher;
import io.verglas.queue.retention.QueueRetention;
import io.verglas.queue.retention.RetentionSweeper;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The queues of one bucket (seed §7.8): durable segment logs in the WAL segment format with
 * consumer groups, acknowledged positions and retention, all in the bucket.
 *
 * <p>Publishing goes through one {@link QueuePublisher} per queue (group commit, made on first
 * use, closed with this object). Consuming: {@link #consumer} gives a {@link GroupConsumer} that
 * leases, reads and acknowledges. Retention runs when {@link #expire} is called (by whoever owns
 * the schedule). The S3 client is the caller's and stays open.
 */
public final class Queues implements AutoCloseable {
  private final QueueObjects objects;
  private final QueueLayout layout = new QueueLayout();
  private final QueueSettings settings;
  private final BufferAllocator allocator = new RootAllocator();
  private final MessageBatchCodec codec = new MessageBatchCodec(allocator);
  private final Map<String, QueuePublisher> publishers = new ConcurrentHashMap<>();

  public Queues(S3Client s3, String bucket, QueueSettings settings) {
    this.objects = new QueueObjects(s3, bucket);
    this.settings = settings;
  }

  /** Publishes the messages as one batch and waits until they are durable. */
  public QueuePosition publish(String queue, List<QueueMessage> messages) {
    try {
      return publisher(queue).publish(messages).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueueException("Cannot publish to queue " + queue + ": interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new QueueException("Cannot publish to queue " + queue + ": " + e.getCause(), e);
    }
  }

  /** The queue's publisher (one per queue and {@code Queues}). */
  public QueuePublisher publisher(String queue) {
    return publishers.computeIfAbsent(QueueLayout.checkQueue(queue), q -> new QueuePublisher(
        log(q), System::currentTimeMillis, settings.maxSegmentBytes(),
        settings.maxPendingBytes()));
  }

  public ConsumerGroup group(String queue, String group) {
    return new ConsumerGroup(objects, layout, log(queue), group, settings.groups());
  }

  /** A consumer of the group; segments delivered too often go to the group's {@link DeadLetters}. */
  public GroupConsumer consumer(String queue, String group, String consumerId) {
    ConsumerGroup consumerGroup = group(queue, group);   // checks the names first
    DeadLetters deadLetters = new DeadLetters(log(queue), group, settings.groups().maxDeliveries(),
        this::publish);
    return new GroupConsumer(consumerGroup, log(queue), consumerId, deadLetters);
  }

  /** Runs retention once on the queue; returns the number of segments deleted. */
  public int expire(String queue) {
    return new QueueRetention(objects, layout, log(queue), settings.retention(),
        settings.groups().clock()).run();
  }

  /** Runs retention on every queue of the bucket each {@code interval}, until closed. */
  public RetentionSweeper sweepRetention(java.time.Duration interval) {
    return new RetentionSweeper(action -> objects.forEachChild(QueueLayout.SEGMENT_PREFIX + "/",
        action), this::expire, interval);
  }

  public SegmentLog log(String queue) {
    return new SegmentLog(objects, layout, queue, codec);
  }

  public QueueLayout layout() {
    return layout;
  }

  @Override
  public void close() {
    publishers.values().forEach(QueuePublisher::close);
    publishers.clear();
    allocator.close();
  }
}
