package io.verglas.cache.origin;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks that make check-then-rename atomic per key (conditional PUT, If-Match DELETE)
 * without a lock object per key. Two keys may share a stripe; that costs only concurrency.
 */
final class KeyLocks {
  private static final int STRIPES = 256;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  KeyLocks() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  ReentrantLock lockFor(String bucket, String key) {
    int h = bucket.hashCode() * 31 + key.hashCode();
    h ^= h >>> 16;
    return locks[h & (STRIPES - 1)];
  }
}
