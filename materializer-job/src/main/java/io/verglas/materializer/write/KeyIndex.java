package io.verglas.materializer.write;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.verglas.materializer.source.WalRow;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>A read returns the key's {@link Slot}, through which the caller writes the new entry: a
 * key found in the cache is then updated in its cached entry, one cache operation per row
 * instead of a look-up and an insert (the second hashed the key again, probed a table of a
 * million entries and updated the eviction policy, a tenth of the task thread).
 *
 * <p>Why the cache is not keyed by the routing key string: Java's string hash of
 * {@code uuid/base64(key)} collides heavily for numeric keys (500k sequential long keys give
 * 110k distinct hashes), so the cache's hash table turned its bins into trees and a look-up
 * compared strings along a tree path. A {@link CacheKey} carries a well-mixed hash of the key
 * bytes instead.
 *
 * <p>Why a miss usually reads nothing: while the cache holds the entry of every key the state
 * holds ({@link #complete}), a miss means the key was never written, and the state is not read.
 * A look-up of an absent key still costs RocksDB a memtable probe and a filter probe of every
 * level's file (block-cache look-ups under a mutex, a disk read for each new file's filter), and
 * with incremental checkpoints flushing a file every interval there are several; every key is
 * new once (measured in the materialize benchmark, 500k keys: 6% of the writer's flush CPU).
 * The index is complete when it starts on empty state, or when a restored state fits the cache
 * and was read into it ({@link #preload}); the first eviction ends it for the rest of the
 * operator's life, and misses read the state again.
 *
 * <p>Callers set the state backend's current key to the slot's key before reading and writing.
 */
final class KeyIndex {
  private final ValueState<KeyEntry> state;
  private final Cache<CacheKey, KeyEntry> cache;
  /** Every entry of the state went through the cache: it was empty, or was preloaded. */
  private boolean stateCached;
  /** The cache dropped an entry: since then it may miss keys the state holds. */
  private boolean evicted;
  /** How many inserts into the cache make it record reads (see {@link #lookUp}). */
  private final long recordReadsFrom;
  /** While a restored state is preloaded: one instance of each table UUID, for its keys. */
  private final Map<String, String> preloadedTables = new HashMap<>();
  private long inserts;
  private long hits;
  private long misses;
  private long stateReads;

  /**
   * An index over {@code state} caching up to {@code cacheEntries} entries (0: no cache);
   * {@code stateEmpty} tells that the state holds no entry yet (not restored).
   */
  KeyIndex(ValueState<KeyEntry> state, int cacheEntries, boolean stateEmpty) {
    this.state = state;
    this.stateCached = stateEmpty;
    this.recordReadsFrom = cacheEntries - cacheEntries / 4;
    this.cache = cacheEntries == 0 ? null
        : Caffeine.newBuilder().maximumSize(cacheEntries).executor(Runnable::run)
            .evictionListener((CacheKey key, KeyEntry value, RemovalCause cause) -> evicted = true)
            .build();
  }

  /**
   * Caches the stored entry of {@code routingKey} (the state's current key) while a restored
   * state is read in; {@link #markComplete} ends it.
   */
  void preload(String routingKey, KeyEntry stored) {
    if (cache != null && stored != null) {
      insert(CacheKey.of(routingKey, preloadedTables), stored.copy());
    }
  }

  /** Declares that every entry of the restored state was {@link #preload}ed. */
  void markComplete() {
    stateCached = true;
    preloadedTables.clear();
  }

  /** Whether a cache miss is answered without reading the state. */
  boolean complete() {
    return cache != null && stateCached && !evicted;
  }

  /**
   * The slot of a primary-key row's key: its entry (null when never written) and its update.
   */
  Slot read(WalRow row) throws IOException {
    CacheKey key = cache == null ? null : CacheKey.of(row);
    KeyEntry cached = key == null ? null : lookUp(key);
    if (cached != null) {
      hits++;
      return new Slot(key, cached, true);
    }
    misses++;
    if (complete()) {
      return new Slot(key, null, false);
    }
    stateReads++;
    return new Slot(key, state.value(), false);
  }

  /**
   * A cache look-up, recorded with the eviction policy only once the cache has taken three
   * quarters of its capacity in inserts. Why: a recorded read (a ring buffer slot, drained into
   * the frequency sketch and the access order) was a tenth of the flush thread's work, and it
   * only serves to choose what to evict, which a cache with room never does. The policy then
   * starts from the order and frequency of the inserts, and learns the reads from there on.
   */
  private KeyEntry lookUp(CacheKey key) {
    return inserts >= recordReadsFrom ? cache.getIfPresent(key)
        : cache.policy().getIfPresentQuietly(key);
  }

  private void insert(CacheKey key, KeyEntry entry) {
    cache.put(key, entry);
    inserts++;
  }

  /** Test seam: the routing keys the eviction policy would keep longest, most likely first. */
  List<String> hottest(int limit) {
    return cache.policy().eviction().orElseThrow().hottest(limit).keySet().stream()
        .map(CacheKey::routingKey).toList();
  }

  long hits() {
    return hits;
  }

  long misses() {
    return misses;
  }

  /** Look-ups the state answered (misses while the index was not {@link #complete}). */
  long stateReads() {
    return stateReads;
  }

  /**
   * A table and primary key, with a hash of both; equal when both are. Why not the routing key
   * string, which holds the same: the cache keeps its key for as long as the entry, and the
   * routing key ({@code uuid/base64(key)}, some 50 characters in a String of its own) was most
   * of a cached entry's bytes, which the collector copied while the index filled. The table UUID
   * is an instance shared by the table's rows, the key bytes the row's own small array.
   */
  private static final class CacheKey {
    private final String tableUuid;
    private final byte[] key;
    private final int hash;

    private CacheKey(String tableUuid, byte[] key) {
      this.tableUuid = tableUuid;
      this.key = key;
      long keyHash = TableBuffer.keyHash(key);
      this.hash = 31 * tableUuid.hashCode() + (int) (keyHash ^ (keyHash >>> 32));
    }

    static CacheKey of(WalRow row) {
      return new CacheKey(row.tableUuid, row.key);
    }

    /** The key of a routing key, its table UUID the shared instance {@code uuids} holds. */
    static CacheKey of(String routingKey, Map<String, String> uuids) {
      String tableUuid = WalRow.tableUuidOf(routingKey);
      return new CacheKey(uuids.computeIfAbsent(tableUuid, uuid -> uuid),
          WalRow.keyOf(routingKey));
    }

    String routingKey() {
      return WalRow.keyedRoutingKey(tableUuid, key);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof CacheKey that && hash == that.hash && Arrays.equals(key, that.key)
          && tableUuid.equals(that.tableUuid);
    }
  }

  /** One key's entry as read, and the way to replace it. */
  final class Slot {
    private final CacheKey key;
    private final KeyEntry entry;
    private final boolean cached;

    private Slot(CacheKey key, KeyEntry entry, boolean cached) {
      this.key = key;
      this.entry = entry;
      this.cached = cached;
    }

    /**
     * The entry read, or null when the key was never written. A cached entry takes the fields of
     * the {@link #update}: read what it held before.
     */
    KeyEntry entry() {
      return entry;
    }

    /**
     * Stores {@code replacement} for the key; it must not change afterwards. A cached entry
     * takes its fields in place: a new object per update, referenced from the cache's long-lived
     * nodes, survived every young collection until its key was next written (the cache's whole
     * working set copied again and again) and then filled the old generation. The cache never
     * shares an object with the state: a heap state backend keeps the object it is given,
     * snapshots included.
     */
    void update(KeyEntry replacement) throws IOException {
      state.update(replacement);
      if (cached) {
        entry.set(replacement);
      } else if (cache != null) {
        insert(key, replacement.copy());
      }
    }
  }
}
