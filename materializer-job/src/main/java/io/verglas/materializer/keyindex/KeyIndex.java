package io.verglas.materializer.keyindex;

import io.verglas.materializer.data.BackgroundWrites;
import io.verglas.materializer.source.WalRow;
import java.io.IOException;
import java.io.InterruptedIOException;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The writer's primary-key index: pages of entries in keyed state ({@link IndexPages}), read
 * through a bounded heap cache ({@link KeyEntryCache}) and written back in batches.
 *
 * <p>Why a cache: each materialized row reads its key's entry and writes the new one. Keys
 * updated now were mostly updated a checkpoint or two ago, so a cache of recently written
 * entries answers most reads; a restored or rescaled writer reads its stored index into the
 * cache when it fits ({@link #restore}), and starts with an empty cache otherwise.
 *
 * <p>Why a miss usually reads nothing: while the cache holds the entry of every key the state
 * holds ({@link #complete}), a miss means the key was never written, and the state is not read.
 * The index is complete when it starts on empty state, or when a restored state fits the cache
 * and was read into it; the first time the cache loses an entry ends it for the rest of the
 * operator's life, and misses then read the key's page.
 *
 * <p>Why write-back: writing each changed entry into RocksDB (a JNI call, the write path, a
 * memtable insert, then flushes and compactions of as many entries) cost more CPU than anything
 * else the writer did, more than encoding the data files (measured in the materialize benchmark,
 * 2M upserts over 500k keys: 8 of 27 CPU seconds). Written entries are collected
 * ({@link DirtyEntries}) and written back page by page: at every checkpoint ({@link #writeBack},
 * before the snapshot, {@link #awaitWrites}), and sooner when many are collected. When most keys
 * change between checkpoints a page of some 32 entries is written once for all of them; when few
 * do, each change rewrites its page, a few dozen entries where a write of one entry used to be.
 * While the index is complete nothing else reads the state, so a write-back runs on a thread of
 * its own ({@code writeBacks}) while flushes go on; otherwise on the caller's thread.
 *
 * <p>Why pinning: once the index is not complete, a miss reads the stored page, which lacks what
 * was written since the last write-back. Entries written then are pinned in the cache (it never
 * evicts them) until written back, so a miss is never for one of them; a write-back runs before
 * the pinned entries could fill the cache. The moment the cache first loses an entry, everything
 * collected is written back at once, as those entries were not pinned.
 *
 * <p>Callers never set the state backend's current key: the store sets it for each read or
 * write of a page, on the thread that does it.
 */
public final class KeyIndex {
  /** Records a restored per-key index is migrated in at a time. */
  static final int MIGRATION_BATCH = 100_000;
  /**
   * Bytes of recent pages kept in memory per cache entry ({@link PageBytesCache}): a page holds
   * some 32 bytes per entry, so an index the cache holds whole has its pages in memory too.
   */
  static final int PAGE_BYTES_PER_CACHE_ENTRY = 48;

  private final IndexPages pages;
  private final int maxParallelism;
  private final KeyEntryCache cache;
  private final int capacity;
  /** The thread writing back while the index is complete, or null: the caller's thread. */
  private final BackgroundWrites writeBacks;
  /** Records collected at which a write-back starts before the checkpoint. */
  private final int dirtyLimit;
  /** What the flushes collect; swapped with {@link #spare} at each write-back. */
  private DirtyEntries dirty = new DirtyEntries();
  /** The records of the last write-back, kept for the next (their chunks are reused). */
  private DirtyEntries spare = new DirtyEntries();
  /** Every entry of the state went through the cache: it was empty, or was read in. */
  private boolean stateCached;
  /** The cache lost an entry: since then it may miss keys the state holds. */
  private boolean evicted;
  private long hits;
  private long misses;
  private long stateReads;
  private long writeBackCount;

  /**
   * An index over {@code store} with the key groups of {@code maxParallelism}, caching up to
   * {@code cacheEntries} entries (0: no cache); {@code stateEmpty} tells that the store holds no
   * entry yet (not restored). With {@code writeBacks}, write-backs of a complete index run on
   * that thread.
   */
  public KeyIndex(IndexPageStore store, int maxParallelism, int cacheEntries, boolean stateEmpty,
      BackgroundWrites writeBacks) {
    this.pages = new IndexPages(store, (long) cacheEntries * PAGE_BYTES_PER_CACHE_ENTRY);
    this.maxParallelism = maxParallelism;
    this.stateCached = stateEmpty;
    this.capacity = cacheEntries;
    this.cache = cacheEntries == 0 ? null : new KeyEntryCache(cacheEntries);
    this.writeBacks = writeBacks;
    this.dirtyLimit = Math.max(1, cacheEntries / 2);
  }

  /**
   * Moves an entry of a per-key index (as builds before the pages stored it) into the pages;
   * call {@link #finishMigration} after the last one.
   */
  public void migrate(String routingKey, int keyGroup, KeyEntry entry) throws IOException {
    dirty.add(WalRow.tableUuidOf(routingKey), WalRow.keyOf(routingKey), keyGroup, true, entry);
    if (dirty.size() >= MIGRATION_BATCH) {
      writeBackNow();
    }
  }

  public void finishMigration() throws IOException {
    writeBackNow();
  }

  /**
   * Reads the stored index of {@code keyGroups} into the cache if it fits, so that a cache miss
   * again means a new key; returns how many entries the state holds. A larger index stays in the
   * state and misses read it.
   */
  public long restore(Iterable<Integer> keyGroups) throws Exception {
    long stored = pages.entries(keyGroups);
    if (cache == null || stored > capacity) {
      return stored;
    }
    pages.forEachEntry(this::insert);
    stateCached = true;
    return stored;
  }

  /** Whether a cache miss is answered without reading the state. */
  public boolean complete() {
    return cache != null && stateCached && !evicted;
  }

  /**
   * The slot of a primary-key row's key: its entry (null when never written) and its update.
   */
  public Slot read(WalRow row) throws IOException {
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
    awaitWriteBacks();
    try {
      return new Slot(row, -1, 0, pages.lookup(row.tableUuid, row.key, keyGroup(row)));
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("Cannot read the key index: " + e.getMessage(), e);
    }
  }

  /**
   * Call at the end of each flush: writes back what was collected when it is much (every flush
   * without a cache, whose misses read the state).
   */
  public void endBatch() throws IOException {
    if (cache == null || dirty.size() >= dirtyLimit) {
      writeBack();
    }
  }

  /**
   * Writes back everything collected: on the write-back thread while the index is complete,
   * here otherwise. Call before a snapshot, then {@link #awaitWrites}.
   */
  public void writeBack() throws IOException {
    if (dirty.isEmpty()) {
      return;
    }
    if (writeBacks == null || !complete()) {
      writeBackNow();
      return;
    }
    awaitWriteBacks();
    DirtyEntries batch = takeDirty();
    writeBackCount++;
    try {
      writeBacks.submit(() -> writeBack(batch));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while handing over key index writes");
    }
  }

  /** Waits until everything handed over is in the state (a snapshot then sees it). */
  public void awaitWrites() throws InterruptedException {
    if (writeBacks != null) {
      writeBacks.await();
    }
  }

  private void awaitWriteBacks() throws IOException {
    try {
      awaitWrites();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while writing back the key index");
    }
  }

  /** Writes back what was collected on this thread, and unpins it. */
  private void writeBackNow() throws IOException {
    awaitWriteBacks();
    if (dirty.isEmpty()) {
      return;
    }
    DirtyEntries batch = takeDirty();
    writeBackCount++;
    writeBack(batch);
    if (cache != null) {
      for (int i = 0; i < batch.size(); i++) {
        int slot = cache.find(batch.table(i), batch.key(i));
        if (slot >= 0) {
          cache.unpin(slot);
        }
      }
    }
  }

  /** The records collected; collecting goes on in the spare (no write-back may be running). */
  private DirtyEntries takeDirty() {
    DirtyEntries batch = dirty;
    spare.clear();
    dirty = spare;
    spare = batch;
    return batch;
  }

  private void writeBack(DirtyEntries batch) {
    try {
      pages.writeBack(batch);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot write back the key index: " + e.getMessage(), e);
    }
  }

  private void insert(String tableUuid, byte[] key, KeyEntry entry) {
    if (cache.insert(tableUuid, key, entry)) {
      evicted = true;
    }
  }

  private int keyGroup(WalRow row) {
    return KeyGroupRangeAssignment.assignToKeyGroup(row.routingKey, maxParallelism);
  }

  public long hits() {
    return hits;
  }

  public long misses() {
    return misses;
  }

  /** Look-ups the state answered (misses while the index was not {@link #complete}). */
  public long stateReads() {
    return stateReads;
  }

  /** Entries the cache holds. */
  public int cachedEntries() {
    return cache == null ? 0 : cache.size();
  }

  /** Write-backs started so far. */
  public long writeBacks() {
    return writeBackCount;
  }

  /** Pages written back so far. */
  public long pagesWritten() {
    return pages.pagesWritten();
  }

  /** Pages read from the state so far (look-ups, and write-backs of pages not kept in memory). */
  public long pagesRead() {
    return pages.pagesRead();
  }

  /** One key's entry as read, and the way to replace it. */
  public final class Slot {
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
    public KeyEntry entry() {
      return entry;
    }

    /**
     * Stores {@code replacement} for the key. The cache and the write-back keep its fields,
     * never the object.
     */
    public void update(KeyEntry replacement) throws IOException {
      if (cache != null && !complete() && dirty.size() >= dirtyLimit) {
        writeBackNow(); // before pinned entries could fill the cache
      }
      dirty.add(row.tableUuid, row.key, keyGroup(row), entry == null, replacement);
      if (cache == null) {
        return;
      }
      boolean pin = !complete();
      // A key the read missed is still missing: nothing was inserted since.
      int at = cached < 0 ? -1
          : version == cache.version() ? cached : cache.find(row.tableUuid, row.key);
      if (at >= 0) {
        cache.update(at, replacement, pin);
        return;
      }
      if (cache.insert(row.tableUuid, row.key, replacement, pin)) {
        evicted = true;
        // Collected entries were not pinned while the index was complete, and a refused one
        // is not cached at all: the state must have them before a miss reads it.
        if (!pin || cache.find(row.tableUuid, row.key) < 0) {
          writeBackNow();
        }
      }
    }
  }
}
