package io.verglas.ingest.wal;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A counting bound on bytes held in memory. Acquiring blocks while the budget is exhausted; a
 * single request larger than the whole budget is charged as the whole budget, so it waits
 * until everything else is released instead of waiting forever.
 */
final class ByteBudget {
  private final long capacity;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private long used;

  ByteBudget(long capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("Invalid capacity: " + capacity);
    }
    this.capacity = capacity;
  }

  /** What acquiring {@code bytes} charges; release exactly this. */
  long charge(long bytes) {
    return Math.min(bytes, capacity);
  }

  /** Waits up to the timeout for {@code charge(bytes)} to fit; returns false on timeout. */
  boolean acquire(long bytes, long timeoutNanos) throws InterruptedException {
    long charge = charge(bytes);
    lock.lock();
    try {
      long remaining = timeoutNanos;
      while (used + charge > capacity) {
        if (remaining <= 0) {
          return false;
        }
        remaining = released.awaitNanos(remaining);
      }
      used += charge;
      return true;
    } finally {
      lock.unlock();
    }
  }

  void release(long charge) {
    lock.lock();
    try {
      used -= charge;
      if (used < 0) {
        throw new IllegalStateException("Released more bytes than acquired: " + used);
      }
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  long used() {
    lock.lock();
    try {
      return used;
    } finally {
      lock.unlock();
    }
  }

  long capacity() {
    return capacity;
  }
}
