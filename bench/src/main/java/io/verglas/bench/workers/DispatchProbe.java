package io.verglas.bench.workers;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What both schedulers' handlers report: when each job started (nanoTime) and how many
 * finished. The benchmark waits on it; handlers only record.
 */
final class DispatchProbe {
  private final String side;
  private final Map<String, Long> started = new ConcurrentHashMap<>();
  private final AtomicInteger finished = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  DispatchProbe(String side) {
    this.side = side;
  }

  /** Called first thing in a handler. */
  void started(String id) {
    started.putIfAbsent(id, System.nanoTime());
    wake();
  }

  /** Called last thing in a handler. */
  void finished() {
    finished.incrementAndGet();
    wake();
  }

  private void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The start time of job {@code id}, waiting up to {@code max}. */
  long awaitStart(String id, Duration max) throws InterruptedException {
    awaitTrue(() -> started.containsKey(id), max, "job " + id + " to start");
    return started.get(id);
  }

  /** Waits until {@code count} handlers have finished in total. */
  void awaitFinished(int count, Duration max) throws InterruptedException {
    awaitTrue(() -> finished.get() >= count, max, count + " jobs to finish");
  }

  int finishedCount() {
    return finished.get();
  }

  private void awaitTrue(java.util.function.BooleanSupplier done, Duration max, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    lock.lock();
    try {
      while (!done.getAsBoolean()) {
        long nanos = deadline - System.nanoTime();
        if (nanos <= 0) {
          throw new IllegalStateException("Cannot measure dispatch on " + side + ": waited "
              + max + " for " + what);
        }
        changed.awaitNanos(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(50)));
      }
    } finally {
      lock.unlock();
    }
  }
}
