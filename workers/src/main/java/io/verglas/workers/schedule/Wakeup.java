package io.verglas.workers.schedule;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A latch the dispatcher sleeps on while it holds every lease it may: a run that finishes
 * while nobody waits leaves its signal, so a slot freed between the claim and the wait is
 * never missed.
 */
final class Wakeup {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signalled = lock.newCondition();
  private boolean pending;

  void signal() {
    lock.lock();
    try {
      pending = true;
      signalled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until a signal or {@code millis}; returns true if signalled. Clears the signal. */
  boolean await(long millis) throws InterruptedException {
    lock.lock();
    try {
      long nanos = TimeUnit.MILLISECONDS.toNanos(Math.max(millis, 0));
      while (!pending && nanos > 0) {
        nanos = signalled.awaitNanos(nanos);
      }
      boolean woken = pending;
      pending = false;
      return woken;
    } finally {
      lock.unlock();
    }
  }
}
