package io.verglas.cache.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Block lookup over a DRAM tier and an optional NVMe tier, with singleflight fills and
 * scan-resistant admission.
 *
 * <p>Design: a lookup is counted in the admission sketch, then checks DRAM; on a miss it
 * registers a future in {@code inFlight} (one per block id). The first registrant loads (NVMe,
 * then the loader, i.e. the origin), everyone who finds a registered future joins it, so N
 * concurrent misses of one block cost one NVMe read or origin fetch. A loader inserts into DRAM
 * before unregistering, so a reader that misses the in-flight map afterwards finds the block in
 * DRAM (if it was admitted); the second DRAM check after registering closes the gap in the other
 * direction. Failed loads are not cached: every waiter of that load gets the error, the next
 * reader tries again.
 *
 * <p>Placement: a block from the origin is offered to DRAM and (in the background) to NVMe; a
 * block from NVMe is offered to DRAM (promotion). Each offer passes {@link Admission}: a full
 * tier takes only blocks seen at least twice, so a scan cannot flush a warm cache; a replica
 * (a cluster peer's copy, {@link BlockFill#replica()}) only fills free room. The tiers are
 * inclusive: a block may be in both.
 *
 * <p>Memory: DRAM blocks are direct buffers, so a hit is written to a socket without copying it
 * into a direct buffer first (on a cache node serving hits, that copy and its allocation were a
 * third of the server's CPU). They are reference-counted and freed when the last holder
 * releases them, not when the garbage collector finds them: the tier holds one reference, a
 * reader gets its own retained view ({@link BlockRead}) and releases it after writing. A reader
 * that races an eviction fails to retain (the count is already zero) and takes the miss path.
 * Loads (origin, NVMe) hand readers heap arrays; only admitted blocks are copied to direct memory.
 */
public final class BlockCache implements AutoCloseable {
  private final DramTier<BlockId, ByteBuf> dram;
  private final NvmeTier nvme;
  private final Admission admission;
  private final ConcurrentHashMap<BlockId, CompletableFuture<Loaded>> inFlight =
      new ConcurrentHashMap<>();
  private final LongAdder dramHits = new LongAdder();
  private final LongAdder dramMisses = new LongAdder();
  private final LongAdder nvmeHits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder coalesced = new LongAdder();
  private final LongAdder bypassed = new LongAdder();
  private final LongAdder fills = new LongAdder();
  private final LongAdder dramRejects = new LongAdder();
  private final LongAdder nvmeRejects = new LongAdder();
  /** Allocates the DRAM copies; its metric tells how much direct memory blocks still hold. */
  private final UnpooledByteBufAllocator direct = new UnpooledByteBufAllocator(true);
  private volatile HitListener hitListener;
  /** Set by {@link #close()}: loads that finish afterwards no longer place blocks in DRAM. */
  private volatile boolean closed;

  /** Told of each DRAM hit of {@link #get}, with the block's recent ask count (hot-block policies). */
  @FunctionalInterface
  public interface HitListener {
    void hit(BlockId id, int frequency, int length);
  }

  /** Where a loaded block came from. */
  private record Loaded(byte[] data, boolean fromCache, boolean replica) {
    Loaded(byte[] data, boolean fromCache) {
      this(data, fromCache, false);
    }
  }

  /** A DRAM-only cache. */
  public BlockCache(long dramCapacityBytes) {
    this(dramCapacityBytes, null, 0, 1, 1 << 20);
  }

  /**
   * A cache with a DRAM tier and, if {@code nvmeDirectory} is not null, an NVMe tier in that
   * directory, whose index is recovered here.
   *
   * @param typicalBlockSize used to size the admission sketch
   */
  public BlockCache(long dramCapacityBytes, Path nvmeDirectory, long nvmeCapacityBytes,
      int nvmeIoThreads, int typicalBlockSize) {
    if (dramCapacityBytes <= 0) {
      throw new IllegalArgumentException("Invalid DRAM capacity: " + dramCapacityBytes);
    }
    this.dram = new DramTier<>(dramCapacityBytes, ByteBuf::readableBytes, ByteBuf::release);
    this.nvme = nvmeDirectory == null ? null
        : new NvmeTier(nvmeDirectory, nvmeCapacityBytes, nvmeIoThreads);
    long blocks = (dramCapacityBytes + (nvme == null ? 0 : nvmeCapacityBytes)) / Math.max(1, typicalBlockSize);
    this.admission = new Admission(Math.max(1024, 4 * blocks));
  }

  /** Sets the one listener of DRAM hits (replacing any before); it must return quickly. */
  public void onDramHit(HitListener listener) {
    this.hitListener = listener;
  }

  public CompletableFuture<BlockRead> get(BlockId id, BlockLoader loader) {
    admission.record(id);
    ByteBuf cached = dramGet(id);
    if (cached != null) {
      return tellHit(id, cached);
    }
    CompletableFuture<Loaded> mine = new CompletableFuture<>();
    CompletableFuture<Loaded> existing = inFlight.putIfAbsent(id, mine);
    if (existing != null) {
      coalesced.increment();
      return existing.thenApply(BlockCache::read);
    }
    cached = dramGet(id);
    if (cached != null) {
      inFlight.remove(id, mine);
      mine.complete(new Loaded(ByteBufUtil.getBytes(cached), true));
      return tellHit(id, cached);
    }
    dramMisses.increment();
    loadMiss(id, loader).whenComplete((loaded, error) -> {
      if (error == null) {
        place(id, loaded);
      }
      inFlight.remove(id, mine);
      if (error != null) {
        mine.completeExceptionally(error);
      } else {
        mine.complete(loaded);
      }
    });
    return mine.thenApply(BlockCache::read);
  }

  /**
   * Like {@link #get}, for a read that must not change what is cached (a background job's): a
   * cached or in-flight block serves it, a miss is loaded (NVMe, then {@code loader}) but not
   * placed in either tier, and the read counts for nothing in the admission policy.
   */
  public CompletableFuture<BlockRead> getWithoutAdmission(BlockId id, BlockLoader loader) {
    ByteBuf cached = dramGet(id);
    if (cached != null) {
      return dramHit(cached);
    }
    CompletableFuture<Loaded> existing = inFlight.get(id);
    if (existing != null) {
      coalesced.increment();
      return existing.thenApply(BlockCache::read);
    }
    dramMisses.increment();
    bypassed.increment();
    return loadMiss(id, loader).thenApply(BlockCache::read);
  }

  private CompletableFuture<BlockRead> tellHit(BlockId id, ByteBuf cached) {
    HitListener listener = hitListener;
    if (listener != null) {
      listener.hit(id, admission.frequency(id), cached.readableBytes());
    }
    return dramHit(cached);
  }

  private CompletableFuture<BlockRead> dramHit(ByteBuf cached) {
    dramHits.increment();
    return CompletableFuture.completedFuture(new BlockRead(cached, true));
  }

  /** A loaded block as a read: a view of its bytes, each reader its own. */
  private static BlockRead read(Loaded loaded) {
    return new BlockRead(Unpooled.wrappedBuffer(loaded.data()), loaded.fromCache());
  }

  /** A retained view of the DRAM copy, or null (absent, or evicted and freed meanwhile). */
  private ByteBuf dramGet(BlockId id) {
    ByteBuf held = dram.get(id);
    if (held == null) {
      return null;
    }
    try {
      return held.retainedDuplicate();
    } catch (IllegalReferenceCountException evictedMeanwhile) {
      return null;
    }
  }

  /** The miss path below DRAM: NVMe, then the loader. */
  private CompletableFuture<Loaded> loadMiss(BlockId id, BlockLoader loader) {
    if (nvme == null) {
      return fromOrigin(id, loader);
    }
    return nvme.read(id).thenCompose(data -> {
      if (data != null) {
        nvmeHits.increment();
        return CompletableFuture.completedFuture(new Loaded(data, true));
      }
      return fromOrigin(id, loader);
    });
  }

  private CompletableFuture<Loaded> fromOrigin(BlockId id, BlockLoader loader) {
    misses.increment();
    try {
      CompletableFuture<BlockFill> load = loader.fill(id);
      if (load == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("Loader returned null for " + id));
      }
      return load.thenApply(fill -> {
        fills.increment();
        return new Loaded(fill.data(), false, fill.replica());
      });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void place(BlockId id, Loaded loaded) {
    byte[] data = loaded.data();
    if (dram.contains(id)) {
      // already held (a concurrent promotion)
    } else if (admit(id, loaded, data.length, dram.residentBytes(), dram.capacityBytes())) {
      placeInDram(id, data);
    } else {
      dramRejects.increment();
    }
    if (nvme != null && !loaded.fromCache() && !nvme.contains(id)) {
      if (admit(id, loaded, BlockFile.fileLength(id, data.length), nvme.diskBytes(), nvme.capacityBytes())) {
        nvme.write(id, data);
      } else {
        nvmeRejects.increment();
      }
    }
  }

  private boolean admit(BlockId id, Loaded loaded, long length, long resident, long capacity) {
    return loaded.replica()
        ? admission.admitReplica(length, resident, capacity)
        : admission.admit(id, length, resident, capacity);
  }

  /**
   * Origin loads are not owned by the cache, so one may finish after {@link #close()}: its block
   * must not stay in DRAM, where nothing would ever free it. Either close's sweep sees the block
   * or this sees {@code closed} (both are ordered by the tier's map and the volatile flag).
   */
  private void placeInDram(BlockId id, byte[] data) {
    if (closed) {
      return;
    }
    ByteBuf copy = direct.directBuffer(data.length, data.length);
    copy.writeBytes(data);
    dram.put(id, copy);
    if (closed) {
      dram.invalidateAll();
    }
  }

  /** Removes every cached block matching the predicate from both tiers; returns how many. */
  public long purge(Predicate<BlockId> matching) {
    long removed = dram.purge(matching);
    if (nvme != null) {
      removed += nvme.purge(matching);
    }
    return removed;
  }

  /** Waits until blocks accepted for the NVMe tier so far are written (or dropped). */
  public void flush() {
    if (nvme != null) {
      nvme.flush();
    }
  }

  public boolean hasNvme() {
    return nvme != null;
  }

  /** Lookups answered by a tier (DRAM or NVMe). */
  public long hits() {
    return dramHits.sum() + nvmeHits.sum();
  }

  /** Lookups that went to the loader (the origin). */
  public long misses() {
    return misses.sum();
  }

  /** Lookups that joined a load already in flight. */
  public long coalesced() {
    return coalesced.sum();
  }

  /** Lookups by {@link #getWithoutAdmission} that missed DRAM and were loaded without placing. */
  public long backgroundMisses() {
    return bypassed.sum();
  }

  /** Blocks the loader delivered. */
  public long fills() {
    return fills.sum();
  }

  /** Blocks evicted from either tier. */
  public long evictions() {
    return dram.evictions() + (nvme == null ? 0 : nvme.evictions());
  }

  public long dramHits() {
    return dramHits.sum();
  }

  public long dramMisses() {
    return dramMisses.sum();
  }

  public long dramFills() {
    return dram.inserted();
  }

  public long dramEvictions() {
    return dram.evictions();
  }

  public long dramAdmissionRejects() {
    return dramRejects.sum();
  }

  public long dramBytes() {
    return dram.residentBytes();
  }

  /**
   * Direct memory held by DRAM blocks, including blocks already evicted that a reader has not
   * released yet. Equals {@link #dramBytes()} when no response is being written; after
   * {@link #close()} and the end of all responses, zero.
   */
  public long directBytesInUse() {
    return direct.metric().usedDirectMemory();
  }

  public long dramCapacityBytes() {
    return dram.capacityBytes();
  }

  public long dramEntries() {
    return dram.entries();
  }

  public long nvmeHits() {
    return nvmeHits.sum();
  }

  public long nvmeMisses() {
    return nvme == null ? 0 : nvme.misses();
  }

  public long nvmeFills() {
    return nvme == null ? 0 : nvme.fills();
  }

  public long nvmeEvictions() {
    return nvme == null ? 0 : nvme.evictions();
  }

  public long nvmeAdmissionRejects() {
    return nvmeRejects.sum();
  }

  /** Bytes of block files on disk (and being written). */
  public long nvmeBytes() {
    return nvme == null ? 0 : nvme.diskBytes();
  }

  public long nvmeCapacityBytes() {
    return nvme == null ? 0 : nvme.capacityBytes();
  }

  public long nvmeEntries() {
    return nvme == null ? 0 : nvme.entries();
  }

  public long nvmeChecksumFailures() {
    return nvme == null ? 0 : nvme.checksumFailures();
  }

  /** NVMe writes skipped: queue full, no room even after eviction, or I/O failure. */
  public long nvmeDroppedWrites() {
    return nvme == null ? 0 : nvme.droppedWrites();
  }

  /** Blocks found on disk when the NVMe tier was opened. */
  public long nvmeRecovered() {
    return nvme == null ? 0 : nvme.recovered();
  }

  public void invalidateAll() {
    dram.invalidateAll();
  }

  /** Drops the DRAM tier and closes the NVMe tier (its files stay for the next start). */
  @Override
  public void close() {
    closed = true;
    dram.invalidateAll();
    if (nvme != null) {
      nvme.close();
    }
  }
}
