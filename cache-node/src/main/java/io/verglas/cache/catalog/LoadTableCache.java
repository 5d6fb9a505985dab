package io.verglas.cache.catalog;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * Successful loadTable responses by table and snapshot mode, bounded in entries and kept for a
 * short TTL.
 *
 * <p>Design: a load that began before an invalidation must not store what it read, or a commit
 * could be hidden for a whole TTL. So each invalidation advances a generation, a load notes the
 * generation before it asks the backing catalog, and its result is stored only if no
 * invalidation happened since; the check and the store run under the same lock as
 * invalidations (both are rare next to reads, which take no lock). A load that raced an
 * invalidation is simply not cached. The cache holds no authoritative state: losing it only
 * costs a backing catalog call.
 */
final class LoadTableCache {
  record Key(TableIdentifier table, SnapshotMode mode) {}

  private final Cache<Key, LoadTableResponse> cache;
  private final boolean enabled;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final Object lock = new Object();
  private long generation;

  LoadTableCache(Duration ttl, int maxEntries, Ticker ticker) {
    this.enabled = !ttl.isZero() && maxEntries > 0;
    this.cache = Caffeine.newBuilder()
        .expireAfterWrite(ttl)
        .maximumSize(maxEntries)
        .ticker(ticker)
        .build();
  }

  /** The cached response, or {@code load}'s (stored unless an invalidation raced it). */
  LoadTableResponse get(Key key, Supplier<LoadTableResponse> load) {
    LoadTableResponse cached = enabled ? cache.getIfPresent(key) : null;
    if (cached != null) {
      hits.increment();
      return cached;
    }
    misses.increment();
    long started;
    synchronized (lock) {
      started = generation;
    }
    LoadTableResponse loaded = load.get();
    if (enabled) {
      synchronized (lock) {
        if (generation == started) {
          cache.put(key, loaded);
        }
      }
    }
    return loaded;
  }

  /** Forgets the table's responses; loads in flight will not store theirs. */
  void invalidate(TableIdentifier table) {
    synchronized (lock) {
      generation++;
      for (SnapshotMode mode : SnapshotMode.values()) {
        cache.invalidate(new Key(table, mode));
      }
    }
  }

  long hits() {
    return hits.sum();
  }

  long misses() {
    return misses.sum();
  }
}
