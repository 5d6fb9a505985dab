package io.verglas.queue.publish;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.queue.QueueException;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.QueuePosition;
import io.verglas.queue.log.SegmentLog;
import io.verglas.wal.WalBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Appends messages to one queue, group-committing concurrent publish calls into segments.
 *
 * <p>Design. Each {@link #publish} call becomes one WAL batch; one writer thread takes the calls
 * waiting when it is free, up to {@code maxSegmentBytes}, stamps each with the hybrid logical
 * clock in the order taken, writes them as one segment and completes every call's future only
 * after the segment's conditional PUT returned (durable). While a segment is in flight, new
 * calls gather for the next one, so the segment size follows the load: one call per segment
 * when idle, many under load.
 *
 * <p>Ownership and concurrency. Any number of threads may publish; only the writer thread
 * touches the {@link SegmentLog}. Publishers in other processes are safe through the log's
 * conditional creation (see {@link SegmentLog}).
 *
 * <p>Failures. A failed PUT fails every call of its segment with a {@link QueueException}; a
 * failed call may or may not have been written (a lost acknowledgement), so a retry may publish
 * twice: delivery is at-least-once anyway. Memory: the calls waiting hold at most
 * {@code maxPendingBytes} of message weight; {@link #publish} blocks while the budget is spent.
 */
public final class QueuePublisher implements AutoCloseable {
  private record Pending(List<QueueMessage> messages, long weight,
      CompletableFuture<QueuePosition> done) {}

  private final SegmentLog log;
  private final HybridLogicalClock clock;
  private final LongSupplier wallMillis;
  private final long maxSegmentBytes;
  private final int maxPendingBytes;
  private final Semaphore budget;
  private final LinkedBlockingQueue<Pending> waiting = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean closed;

  public QueuePublisher(SegmentLog log, LongSupplier wallMillis, long maxSegmentBytes,
      int maxPendingBytes) {
    if (maxSegmentBytes <= 0 || maxPendingBytes <= 0) {
      throw new IllegalArgumentException("Invalid publisher bounds: segment " + maxSegmentBytes
          + " bytes, pending " + maxPendingBytes + " bytes");
    }
    this.log = log;
    this.wallMillis = wallMillis;
    this.clock = new HybridLogicalClock(wallMillis);
    this.maxSegmentBytes = maxSegmentBytes;
    this.maxPendingBytes = maxPendingBytes;
    this.budget = new Semaphore(maxPendingBytes);
    this.writer = new Thread(this::writeLoop, "queue-publisher-" + log.queue());
    this.writer.setDaemon(true);
    this.writer.start();
  }

  /**
   * Publishes the messages as one batch; the future completes with the first message's
   * position once the segment holding them is durable (the others follow it in order).
   */
  public CompletableFuture<QueuePosition> publish(List<QueueMessage> messages) {
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("Cannot publish to queue " + log.queue()
          + ": no messages");
    }
    long weight = 0;
    for (QueueMessage message : messages) {
      weight += message.weight();
    }
    if (weight > maxPendingBytes) {
      throw new IllegalArgumentException("Cannot publish to queue " + log.queue() + ": "
          + weight + " bytes exceed the publisher's pending bound of " + maxPendingBytes);
    }
    acquire((int) weight);
    Pending pending = new Pending(List.copyOf(messages), weight, new CompletableFuture<>());
    if (closed) {
      budget.release((int) weight);
      throw new IllegalStateException("Cannot publish to queue " + log.queue() + ": closed");
    }
    waiting.add(pending);
    return pending.done();
  }

  private void acquire(int weight) {
    try {
      budget.acquire(weight);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueueException("Cannot publish to queue " + log.queue() + ": interrupted", e);
    }
  }

  private void writeLoop() {
    try {
      while (!closed || !waiting.isEmpty()) {
        Pending first = waiting.poll(100, TimeUnit.MILLISECONDS);
        if (first != null) {
          writeSegment(take(first));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop(new QueueException("Cannot publish to queue " + log.queue() + ": interrupted", e));
    } catch (Error e) {
      stop(e);
      throw e;
    }
  }

  /** The writer is gone: refuse new calls and fail the waiting ones rather than strand them. */
  private void stop(Throwable cause) {
    closed = true;
    Pending late;
    while ((late = waiting.poll()) != null) {
      late.done().completeExceptionally(cause);
      budget.release((int) late.weight());
    }
  }

  private List<Pending> take(Pending first) {
    List<Pending> segment = new ArrayList<>();
    segment.add(first);
    long bytes = first.weight();
    Pending next;
    while (bytes < maxSegmentBytes && (next = waiting.peek()) != null
        && bytes + next.weight() <= maxSegmentBytes) {
      segment.add(waiting.poll());
      bytes += next.weight();
    }
    return segment;
  }

  private void writeSegment(List<Pending> segment) {
    try {
      List<WalBatch> batches = new ArrayList<>(segment.size());
      for (Pending pending : segment) {
        batches.add(new WalBatch(clock.tick(), pending.messages().size(), null,
            log.codec().encode(pending.messages())));
      }
      long sequence = log.append(batches, wallMillis.getAsLong());
      int index = 0;
      for (Pending pending : segment) {
        pending.done().complete(new QueuePosition(sequence, index));
        index += pending.messages().size();
      }
    } catch (RuntimeException e) {
      fail(segment, e);
    } catch (Error e) {
      fail(segment, e);
      throw e;
    } finally {
      for (Pending pending : segment) {
        budget.release((int) pending.weight());
      }
    }
  }

  private static void fail(List<Pending> segment, Throwable cause) {
    for (Pending pending : segment) {
      pending.done().completeExceptionally(cause);
    }
  }

  /** Writes what is waiting, then stops the writer thread. */
  @Override
  public void close() {
    closed = true;
    try {
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stop(new IllegalStateException("Cannot publish to queue " + log.queue() + ": closed"));
  }
}
