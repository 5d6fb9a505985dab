package io.verglas.cache.block;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * The DRAM tier: id → bytes in a Caffeine cache weighted by length. Blocks use it with
 * reference-counted direct buffers keyed by {@link BlockId}; the {@link MetadataStore} has its
 * own instance over byte arrays. The tier owns what it holds: a value is released (the
 * {@code release} hook) when it leaves the map, and a value {@link #put} did not store is
 * released at once.
 *
 * <p>Design: the ceiling is enforced by reservation, not by Caffeine's eventual eviction. A
 * block's bytes are reserved in {@code resident} (compare-and-set against the capacity) before
 * the block is inserted, and released by the removal listener after it left the map. When the
 * reservation fails, the coldest entries in Caffeine's eviction order (W-TinyLFU: window,
 * probation, protected, by frequency) are removed until it fits. So {@code resident} never
 * exceeds the capacity, even with concurrent inserts, which Caffeine's own size bound only
 * guarantees once its maintenance has run. Caffeine's maximumWeight is set to the capacity as
 * well and stays a safety net. Maintenance runs on the calling thread. The weight counts block
 * bytes, not per-entry overhead (tens of bytes per block of at least 1 MiB).
 */
final class DramTier<K, V> {
  private static final int EVICTION_BATCH = 8;

  private final Cache<K, V> cache;
  private final long capacityBytes;
  private final AtomicLong resident = new AtomicLong();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder inserted = new LongAdder();

  private final ToIntFunction<V> weigher;
  private final Consumer<V> release;

  /** A tier of byte arrays (nothing to release). */
  static <K> DramTier<K, byte[]> ofArrays(long capacityBytes) {
    return new DramTier<>(capacityBytes, a -> a.length, a -> { });
  }

  DramTier(long capacityBytes, ToIntFunction<V> weigher, Consumer<V> release) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("Invalid capacity: " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    this.weigher = weigher;
    this.release = release;
    this.cache = Caffeine.newBuilder()
        .maximumWeight(capacityBytes)
        .weigher((K id, V data) -> weigher.applyAsInt(data))
        .executor(Runnable::run)
        .removalListener((K id, V data, RemovalCause cause) -> {
          if (data != null) {
            resident.addAndGet(-weigher.applyAsInt(data));
            release.accept(data);
          }
          if (cause == RemovalCause.SIZE) {
            evictions.increment();
          }
        })
        .build();
  }

  V get(K id) {
    return cache.getIfPresent(id);
  }

  boolean contains(K id) {
    return cache.asMap().containsKey(id);
  }

  /**
   * Inserts the value, evicting colder ones to make room. Takes ownership: if the value is not
   * stored (no room, or the id is already held), it is released and false is returned.
   */
  boolean put(K id, V data) {
    int length = weigher.applyAsInt(data);
    if (length > capacityBytes || cache.asMap().containsKey(id)) {
      release.accept(data);
      return false;
    }
    for (int attempt = 0; !reserve(length); attempt++) {
      if (attempt == 4 || !evictColdest(length)) {
        release.accept(data);
        return false;
      }
    }
    if (cache.asMap().putIfAbsent(id, data) != null) {
      resident.addAndGet(-length);
      release.accept(data);
      return false;
    }
    inserted.increment();
    cache.cleanUp();
    return true;
  }

  /** True if {@code length} more bytes fit without evicting. */
  boolean hasRoom(long length) {
    return resident.get() + length <= capacityBytes;
  }

  private boolean reserve(long length) {
    while (true) {
      long now = resident.get();
      if (now + length > capacityBytes) {
        return false;
      }
      if (resident.compareAndSet(now, now + length)) {
        return true;
      }
    }
  }

  /** Removes coldest entries until {@code length} bytes would fit; false if nothing was left. */
  private boolean evictColdest(long length) {
    var eviction = cache.policy().eviction().orElseThrow();
    boolean removed = false;
    for (K victim : eviction.coldest(EVICTION_BATCH).keySet()) {
      if (cache.asMap().remove(victim) != null) {
        evictions.increment();
        removed = true;
      }
      if (hasRoom(length)) {
        return true;
      }
    }
    cache.cleanUp();
    return removed;
  }

  /** Removes every block matching the predicate; returns how many. */
  long purge(Predicate<K> matching) {
    long removed = 0;
    for (K id : cache.asMap().keySet()) {
      if (matching.test(id) && cache.asMap().remove(id) != null) {
        removed++;
      }
    }
    cache.cleanUp();
    return removed;
  }

  long residentBytes() {
    return resident.get();
  }

  long capacityBytes() {
    return capacityBytes;
  }

  long entries() {
    return cache.estimatedSize();
  }

  long evictions() {
    return evictions.sum();
  }

  long inserted() {
    return inserted.sum();
  }

  void invalidateAll() {
    cache.invalidateAll();
    cache.cleanUp();
  }
}
