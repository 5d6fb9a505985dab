package io.verglas.materializer.write;

import io.verglas.materializer.source.WalRow;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.ValueState;

/**
 * The writer's primary-key index: the keyed RocksDB state, read through a bounded heap cache
 * ({@link KeyEntryCache}).
 *
 * <p>Why a cache: each materialized row reads its key's entry and writes the new one, and the
 * read (a JNI call, a memtable and block search, a copy back) cost more of the writer's task
 * thread than anything else it does. Keys updated now were mostly updated a checkpoint or two
 * ago, so a cache of recently written entries answers most reads. It is write-through and only
 * this operator writes the state, so a cached entry always equals the stored one; a restored
 * or rescaled writer starts with an empty cache.
 *
 * <p>A read returns the key's {@link Slot}, through which the caller writes the new entry: a
 * key found in the cache is then updated in its slot, without looking it up again.
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
 * <p>Callers never set the state backend's current key: the index sets it for each read or
 * write of the state, on the thread that does it.
 *
 * <p>Why state writes can run behind: writing an entry into RocksDB (a JNI call, the write
 * path, a memtable insert) was half of the flush thread's CPU, and that thread paces the writer.
 * While the index is {@link #complete}, nothing reads the state, so the writes of a flush are
 * collected and applied by a thread of their own ({@link #endBatch}) while the next flush
 * computes its entries; the cache already answers for them. Once the index is not complete, a
 * miss must read what the state holds, so pending writes are applied first and the index then
 * writes through. Before a snapshot the caller waits for them ({@link #awaitWrites}).
 */
final class KeyIndex {
  private final ValueState<KeyEntry> state;
  /** Sets the state backend's current key. */
  private final Consumer<String> currentKey;
  private final KeyEntryCache cache;
  /** The thread applying state writes behind the flush, or null: written through. */
  private final BackgroundWrites stateWrites;
  /** The routing keys and entries written since {@link #endBatch}, not yet in the state. */
  private List<String> pendingKeys = new ArrayList<>();
  private List<KeyEntry> pendingEntries = new ArrayList<>();
  /** Every entry of the state went through the cache: it was empty, or was preloaded. */
  private boolean stateCached;
  /** The cache dropped an entry: since then it may miss keys the state holds. */
  private boolean evicted;
  private long hits;
  private long misses;
  private long stateReads;

  /**
   * An index over {@code state}, whose current key {@code currentKey} sets, caching up to
   * {@code cacheEntries} entries (0: no cache); {@code stateEmpty} tells that the state holds no
   * entry yet (not restored). With {@code stateWrites}, writes run behind on that thread.
   */
  KeyIndex(ValueState<KeyEntry> state, Consumer<String> currentKey, int cacheEntries,
      boolean stateEmpty, BackgroundWrites stateWrites) {
    this.state = state;
    this.currentKey = currentKey;
    this.stateCached = stateEmpty;
    this.cache = cacheEntries == 0 ? null : new KeyEntryCache(cacheEntries);
    this.stateWrites = stateWrites;
  }

  /**
   * Caches the stored entry of {@code routingKey} (the state's current key) while a restored
   * state is read in; {@link #markComplete} ends it.
   */
  void preload(String routingKey, KeyEntry stored) {
    if (cache != null && stored != null) {
      insert(WalRow.tableUuidOf(routingKey), WalRow.keyOf(routingKey), stored);
    }
  }

  /** Declares that every entry of the restored state was {@link #preload}ed. */
  void markComplete() {
    stateCached = true;
  }

  /** Whether a cache miss is answered without reading the state. */
  boolean complete() {
    return cache != null && stateCached && !evicted;
  }

  /**
   * The slot of a primary-key row's key: its entry (null when never written) and its update.
   */
  Slot read(WalRow row) throws IOException {
    int cached = cache == null ? -1 : cache.find(row.tableUuid, row.key);
    if (cached >= 0) {
      hits++;
      return new Slot(row, cached, cache.version(), cache.entry(cached));
    }
    misses++;
    if (complete()) {
      return new Slot(row, -1, 0, null);
    }
    stateReads++;
    applyPendingWrites();
    currentKey.accept(row.routingKey);
    return new Slot(row, -1, 0, state.value());
  }

  /**
   * Hands the writes collected since the last call to the writing thread, once it has applied
   * the previous ones; call at the end of each flush.
   */
  void endBatch() throws InterruptedException {
    if (stateWrites == null || pendingKeys.isEmpty()) {
      return;
    }
    stateWrites.await();
    List<String> keys = pendingKeys;
    List<KeyEntry> entries = pendingEntries;
    pendingKeys = new ArrayList<>(keys.size());
    pendingEntries = new ArrayList<>(entries.size());
    stateWrites.submit(() -> write(keys, entries));
  }

  /** Waits until every write handed over is in the state (a snapshot then sees them). */
  void awaitWrites() throws InterruptedException {
    if (stateWrites != null) {
      stateWrites.await();
    }
  }

  /** Applies, on this thread, the writes handed over and those collected. */
  private void applyPendingWrites() throws IOException {
    if (stateWrites == null) {
      return;
    }
    try {
      stateWrites.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while applying key index writes");
    }
    write(pendingKeys, pendingEntries);
    pendingKeys.clear();
    pendingEntries.clear();
  }

  private void write(List<String> keys, List<KeyEntry> entries) {
    try {
      for (int i = 0; i < keys.size(); i++) {
        currentKey.accept(keys.get(i));
        state.update(entries.get(i));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the key index: " + e.getMessage(), e);
    }
  }

  private void insert(String tableUuid, byte[] key, KeyEntry entry) {
    if (cache.insert(tableUuid, key, entry)) {
      evicted = true;
    }
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

  /** Entries the cache holds. */
  int cachedEntries() {
    return cache == null ? 0 : cache.size();
  }

  /** One key's entry as read, and the way to replace it. */
  final class Slot {
    private final WalRow row;
    private final int cached;
    private final int version;
    private final KeyEntry entry;

    private Slot(WalRow row, int cached, int version, KeyEntry entry) {
      this.row = row;
      this.cached = cached;
      this.version = version;
      this.entry = entry;
    }

    /** The entry read, or null when the key was never written. */
    KeyEntry entry() {
      return entry;
    }

    /**
     * Stores {@code replacement} for the key. The cache keeps its fields, never the object: a
     * heap state backend keeps the object it is given, snapshots included.
     */
    void update(KeyEntry replacement) throws IOException {
      if (cache != null) {
        // A key the read missed is still missing: nothing was inserted since.
        int at = cached < 0 ? -1
            : version == cache.version() ? cached : cache.find(row.tableUuid, row.key);
        if (at >= 0) {
          cache.update(at, replacement);
        } else {
          insert(row.tableUuid, row.key, replacement);
        }
      }
      if (stateWrites != null && complete()) {
        pendingKeys.add(row.routingKey);
        pendingEntries.add(replacement);
      } else {
        applyPendingWrites();
        currentKey.accept(row.routingKey);
        state.update(replacement);
      }
    }
  }
}
