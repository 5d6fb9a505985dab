package io.verglas.materializer.write;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import org.apache.flink.api.common.state.ValueState;

/**
 * The writer's primary-key index: the keyed RocksDB state, read through a bounded heap cache.
 *
 * <p>Why a cache: each materialized row reads its key's entry and writes the new one, and the
 * read (a JNI call, a memtable and block search, a copy back) cost more of the writer's task
 * thread than anything else it does. Keys updated now were mostly updated a checkpoint or two
 * ago, so a cache of recently written entries answers most reads. It is write-through and only
 * this operator writes the state, so a cached entry always equals the stored one; a restored
 * or rescaled writer starts with an empty cache. Entries are evicted by Caffeine's size policy,
 * on the task thread (no maintenance thread touches it).
 *
 * <p>Callers set the state backend's current key to {@code routingKey} before each call.
 */
final class KeyIndex {
  private final ValueState<KeyEntry> state;
  private final Cache<String, KeyEntry> cache;
  private long hits;
  private long misses;

  /** An index over {@code state} caching up to {@code cacheEntries} entries (0: no cache). */
  KeyIndex(ValueState<KeyEntry> state, int cacheEntries) {
    this.state = state;
    this.cache = cacheEntries == 0 ? null
        : Caffeine.newBuilder().maximumSize(cacheEntries).executor(Runnable::run).build();
  }

  /** The entry of {@code routingKey}, or null when the key was never written. */
  KeyEntry get(String routingKey) throws IOException {
    if (cache == null) {
      return state.value();
    }
    KeyEntry entry = cache.getIfPresent(routingKey);
    if (entry != null) {
      hits++;
      return entry;
    }
    misses++;
    return state.value();
  }

  /** Stores {@code entry} for {@code routingKey}; the entry must not change afterwards. */
  void put(String routingKey, KeyEntry entry) throws IOException {
    state.update(entry);
    if (cache != null) {
      cache.put(routingKey, entry);
    }
  }

  long hits() {
    return hits;
  }

  long misses() {
    return misses;
  }
}
