package io.verglas.queue.retention;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs retention on every queue of a bucket on a schedule: each {@code interval} (fixed delay,
 * one pass at a time), lists the queues a page at a time and runs one {@link QueueRetention}
 * pass on each. A queue whose pass fails is logged and tried again at the next sweep; the other
 * queues go on. Passes are safe to run from several processes at once, so every stack may run
 * one. Counters: sweeps, segments deleted, queues that failed.
 */
public final class RetentionSweeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionSweeper.class);

  private final Consumer<Consumer<String>> queues;
  private final ToIntFunction<String> expire;
  private final ScheduledExecutorService timer;
  private final AtomicLong sweeps = new AtomicLong();
  private final AtomicLong deleted = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  /**
   * @param queues hands each queue name of the bucket to its argument
   * @param expire runs one retention pass on a queue, answering the segments it deleted
   */
  public RetentionSweeper(Consumer<Consumer<String>> queues, ToIntFunction<String> expire,
      Duration interval) {
    Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("Invalid queue retention interval: " + interval);
    }
    this.queues = queues;
    this.expire = expire;
    this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "queue-retention");
      thread.setDaemon(true);
      return thread;
    });
    long millis = interval.toMillis();
    timer.scheduleWithFixedDelay(this::sweep, millis, millis, TimeUnit.MILLISECONDS);
  }

  /** One sweep over every queue now (the schedule calls this; tests may too). */
  public void sweep() {
    try {
      queues.accept(queue -> {
        try {
          deleted.addAndGet(expire.applyAsInt(queue));
        } catch (RuntimeException e) {
          failures.incrementAndGet();
          LOG.warn("Cannot run retention on queue {}: {}", queue, e.toString());
        }
      });
    } catch (RuntimeException e) {
      failures.incrementAndGet();
      LOG.warn("Cannot list the queues for retention: {}", e.toString());
    }
    sweeps.incrementAndGet();
  }

  public long sweeps() {
    return sweeps.get();
  }

  public long segmentsDeleted() {
    return deleted.get();
  }

  public long failures() {
    return failures.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
