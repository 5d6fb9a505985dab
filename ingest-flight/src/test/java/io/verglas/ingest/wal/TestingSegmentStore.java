package io.verglas.ingest.wal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory object store with conditional puts and scripted faults: each queued fault is
 * thrown by the next put (and, for "lost acks", the put still lands).
 */
final class TestingSegmentStore implements SegmentStore {
  enum Fault {
    FAIL_RETRYABLE, FAIL_PERMANENT, LAND_THEN_FAIL,
    /** Lands, then answers "exists": a client retried after its first attempt's answer was lost. */
    LAND_THEN_EXISTS
  }

  private final Map<String, byte[]> objects = new ConcurrentSkipListMap<>();
  private final Map<String, Long> modified = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(42);
  private final AtomicInteger heads = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private final AtomicInteger putAttempts = new AtomicInteger();
  private volatile CountDownLatch gate;

  synchronized void failNextPuts(Fault fault, int times) {
    for (int i = 0; i < times; i++) {
      faults.add(fault);
    }
  }

  /** Blocks every put until {@link #open()}; used to pile batches up behind a slow store. */
  void close() {
    gate = new CountDownLatch(1);
  }

  void open() {
    CountDownLatch current = gate;
    gate = null;
    if (current != null) {
      current.countDown();
    }
  }

  /** Writes an object as another process would. */
  void putForeign(String key, byte[] bytes) {
    objects.put(key, bytes);
    modified.put(key, now.get());
  }

  /** The store's clock, stamped on objects as they are written. */
  void setNowMillis(long millis) {
    now.set(millis);
  }

  int heads() {
    return heads.get();
  }

  /** How many puts wait for {@link #open()} right now. */
  int waitingPuts() {
    return waiting.get();
  }

  int putAttempts() {
    return putAttempts.get();
  }

  Map<String, byte[]> objects() {
    return objects;
  }

  @Override
  public boolean putIfAbsent(String key, byte[] bytes) {
    CountDownLatch current = gate;
    if (current != null) {
      waiting.incrementAndGet();
      try {
        current.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SegmentStoreException("interrupted", e, true);
      } finally {
        waiting.decrementAndGet();
      }
    }
    putAttempts.incrementAndGet();
    Fault fault;
    synchronized (this) {
      fault = faults.poll();
    }
    if (fault == Fault.FAIL_RETRYABLE) {
      throw new SegmentStoreException("Cannot put " + key + ": 503 Slow Down", null, true);
    } else if (fault == Fault.FAIL_PERMANENT) {
      throw new SegmentStoreException("Cannot put " + key + ": 403 Access Denied", null, false);
    }
    boolean created = objects.putIfAbsent(key, bytes.clone()) == null;
    if (created) {
      modified.put(key, now.get());
    }
    if (fault == Fault.LAND_THEN_FAIL) {
      throw new SegmentStoreException("Cannot put " + key + ": connection reset", null, true);
    }
    return created && fault != Fault.LAND_THEN_EXISTS;
  }

  @Override
  public void put(String key, byte[] bytes) {
    CountDownLatch current = gate;
    if (current != null) {
      try {
        current.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SegmentStoreException("interrupted", e, true);
      }
    }
    objects.put(key, bytes.clone());
    modified.put(key, now.get());
  }

  @Override
  public Optional<byte[]> get(String key) {
    return Optional.ofNullable(objects.get(key)).map(byte[]::clone);
  }

  @Override
  public boolean exists(String key) {
    heads.incrementAndGet();
    return objects.containsKey(key);
  }

  @Override
  public List<StoredObject> listObjects(String prefix) {
    List<StoredObject> found = new ArrayList<>();
    for (String key : objects.keySet()) {
      if (key.startsWith(prefix)) {
        found.add(new StoredObject(key, modified.getOrDefault(key, 0L)));
      }
    }
    return found;
  }

  @Override
  public void delete(String key) {
    objects.remove(key);
    modified.remove(key);
  }
}
