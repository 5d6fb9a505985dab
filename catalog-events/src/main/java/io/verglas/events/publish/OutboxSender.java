package io.verglas.events.publish;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the entries of a {@link DurableOutbox}, oldest first, on one background thread.
 *
 * <p>Design. The thread peeks the oldest undelivered entry, hands it to a {@link Delivery} and
 * acknowledges it when delivered, so the outbox's marker only moves past an entry the feed has,
 * and entries reach the feed in the order they were appended. Outboxes that other publishers
 * abandoned ({@link DurableOutbox#claimAbandoned}) are drained first, one after the other, and
 * closed once empty: their events are older than this publisher's.
 *
 * <p>Failures. An entry not delivered is tried again after a capped exponential {@link Backoff},
 * for as long as the sender runs: nothing is dropped for being late. Appends wake an idle sender
 * but do not cut a backoff short, so a busy producer cannot hammer a failing feed. A failure is
 * logged at WARN when a streak starts or its reason changes, and again every {@value
 * #REMIND_EVERY} attempts; recovery is logged at INFO. An entry the destination will never take
 * ({@link Delivery.Kind#REJECTED}) is skipped with an ERROR and counted, so one bad event cannot
 * stop all later ones.
 *
 * <p>Stopping. {@link #close} lets the thread deliver what it can within a bounded time: it
 * stops at the first failure or when the outbox is empty, and is interrupted at the deadline
 * (an HTTP attempt in flight is abandoned). What it did not deliver stays in the outbox for the
 * next publisher of that directory.
 */
public final class OutboxSender {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxSender.class);
  /** A sender that nothing wakes looks at its outbox this often anyway. */
  private static final long IDLE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long JOIN_AFTER_INTERRUPT_MILLIS = 1_000;
  /** A failure streak is logged again every this many attempts. */
  static final int REMIND_EVERY = 100;

  private final DurableOutbox outbox;
  private final Deque<DurableOutbox> backlog;
  private final Delivery delivery;
  private final Backoff backoff;
  private final Thread thread;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  /** Guarded by {@link #lock}. */
  private boolean woken;
  private boolean stopping;
  /** The current failure streak; only the sender thread uses these. */
  private long failures;
  private String lastReason;

  /**
   * A sender for {@code outbox} that first drains {@code backlog} (and closes each of those when
   * empty); {@code name} names its thread.
   */
  public OutboxSender(String name, DurableOutbox outbox, List<DurableOutbox> backlog,
      Delivery delivery, Backoff backoff) {
    this.outbox = outbox;
    this.backlog = new ArrayDeque<>(backlog);
    this.delivery = delivery;
    this.backoff = backoff;
    this.thread = new Thread(this::run, "verglas-outbox-sender-" + name);
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** Tells an idle sender that an entry was appended. */
  public void wake() {
    lock.lock();
    try {
      woken = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Entries delivered since start. */
  public long delivered() {
    return delivered.get();
  }

  /** Entries the destination refused for good, skipped since start. */
  public long rejected() {
    return rejected.get();
  }

  private void run() {
    try {
      while (step()) {
        // one entry, or one wait, per step
      }
    } catch (InterruptedException e) {
      // close() gave up waiting: what is left stays in the outbox
    } finally {
      backlog.forEach(OutboxSender::closeQuietly);
    }
  }

  /** Delivers, or waits for, one entry; false when the sender is done. */
  private boolean step() throws InterruptedException {
    DurableOutbox source = backlog.isEmpty() ? outbox : backlog.peekFirst();
    Optional<OutboxEntry> next;
    try {
      next = source.peek();
    } catch (IOException | RuntimeException e) {
      return failed("(next)", source, "cannot read the outbox: " + e);
    }
    if (next.isEmpty()) {
      if (source != outbox) {
        retire(source);
        return true;
      }
      return awaitAppend();
    }
    OutboxEntry entry = next.get();
    Delivery.Result result;
    try {
      result = delivery.deliver(entry);
    } catch (RuntimeException e) {
      result = Delivery.Result.retry(e.toString());
    }
    return switch (result.kind()) {
      case DELIVERED -> acknowledge(source, entry, true);
      case REJECTED -> reject(source, entry, result.reason());
      case RETRY -> failed(entry.id(), source, result.reason());
    };
  }

  private boolean acknowledge(DurableOutbox source, OutboxEntry entry, boolean deliveredNow)
      throws InterruptedException {
    try {
      source.ack(entry);
    } catch (IOException | RuntimeException e) {
      // Sent again later; the feed drops the id it has.
      return failed(entry.id(), source, "cannot record its delivery: " + e);
    }
    if (deliveredNow) {
      delivered.incrementAndGet();
      if (failures > 0) {
        LOG.info("Published event {} to {} after {} failed attempts", entry.id(), delivery,
            failures);
      }
      failures = 0;
      lastReason = null;
    }
    return true;
  }

  private boolean reject(DurableOutbox source, OutboxEntry entry, String reason)
      throws InterruptedException {
    rejected.incrementAndGet();
    LOG.error("Cannot publish event {} to {}: {}; it is skipped, as the feed will never take it"
        + " (its commit is in the catalog)", entry.id(), delivery, reason);
    return acknowledge(source, entry, false);
  }

  /** Logs a failed attempt and waits out the backoff; false when the sender is stopping. */
  private boolean failed(String id, DurableOutbox source, String reason)
      throws InterruptedException {
    failures++;
    if (failures == 1 || !reason.equals(lastReason)) {
      LOG.warn("Cannot publish event {} to {}: {}; it stays in the outbox {} and is retried",
          id, delivery, reason, source);
    } else if (failures % REMIND_EVERY == 0) {
      LOG.warn("Cannot publish event {} to {}: {}; still retrying after {} attempts", id,
          delivery, reason, failures);
    } else {
      LOG.debug("Cannot publish event {} to {} (attempt {}): {}", id, delivery, failures, reason);
    }
    lastReason = reason;
    return pause(backoff.delay(failures));
  }

  private void retire(DurableOutbox abandoned) {
    backlog.removeFirst();
    LOG.info("Delivered every event of the abandoned outbox {}", abandoned);
    closeQuietly(abandoned);
  }

  /** Waits for an append (or a while); false when the sender is stopping and was not woken. */
  private boolean awaitAppend() throws InterruptedException {
    lock.lock();
    try {
      if (!woken && !stopping) {
        changed.awaitNanos(IDLE_WAIT_NANOS);
      }
      boolean appended = woken;
      woken = false;
      return appended || !stopping;
    } finally {
      lock.unlock();
    }
  }

  /** Waits {@code delay} unless the sender stops first; false when it is stopping. */
  private boolean pause(Duration delay) throws InterruptedException {
    lock.lock();
    try {
      long left = delay.toNanos();
      while (!stopping && left > 0) {
        left = changed.awaitNanos(left);
      }
      return !stopping;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Delivers what can be delivered within {@code timeout}, then stops the thread; undelivered
   * entries stay in the outbox. Idempotent.
   */
  public void close(Duration timeout) {
    lock.lock();
    try {
      stopping = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!thread.isAlive()) {
      return;
    }
    try {
      thread.join(Math.max(1, timeout.toMillis()));
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(JOIN_AFTER_INTERRUPT_MILLIS);
      }
    } catch (InterruptedException e) {
      thread.interrupt();
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("The outbox sender {} did not stop within {}; leaving it", thread.getName(),
          timeout);
    }
  }

  private static void closeQuietly(DurableOutbox outbox) {
    try {
      outbox.close();
    } catch (IOException e) {
      LOG.warn("Cannot close the outbox {}: {}", outbox, e.toString());
    }
  }
}
