package io.verglas.cache.block;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Block lookup with singleflight fills.
 *
 * <p>Design: a lookup checks the DRAM tier; on a miss it registers a future in {@code inFlight}
 * (one per block id). The first registrant loads, everyone who finds a registered future joins
 * it, so N concurrent misses of one block cost one origin fetch. A loader inserts into DRAM before
 * unregistering, so a reader that misses the in-flight map afterwards finds the block in DRAM;
 * the second DRAM check after registering closes the gap in the other direction. Failed loads
 * are not cached: every waiter of that load gets the error, the next reader tries again.
 *
 * <p>Mechanism only: eviction is the tier's policy, admission (scan resistance) and a disk tier
 * plug in at {@link #loadMiss} later.
 */
public final class BlockCache {
  private final BlockTier dram;
  private final ConcurrentHashMap<BlockId, CompletableFuture<byte[]>> inFlight =
      new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder coalesced = new LongAdder();
  private final LongAdder fills = new LongAdder();

  public BlockCache(long dramCapacityBytes) {
    if (dramCapacityBytes <= 0) {
      throw new IllegalArgumentException("Invalid DRAM capacity: " + dramCapacityBytes);
    }
    this.dram = new DramTier(dramCapacityBytes);
  }

  public CompletableFuture<BlockRead> get(BlockId id, BlockLoader loader) {
    byte[] cached = dram.getIfPresent(id);
    if (cached != null) {
      hits.increment();
      return CompletableFuture.completedFuture(new BlockRead(cached, true));
    }
    CompletableFuture<byte[]> mine = new CompletableFuture<>();
    CompletableFuture<byte[]> existing = inFlight.putIfAbsent(id, mine);
    if (existing != null) {
      coalesced.increment();
      return existing.thenApply(data -> new BlockRead(data, false));
    }
    cached = dram.getIfPresent(id);
    if (cached != null) {
      inFlight.remove(id, mine);
      mine.complete(cached);
      hits.increment();
      return CompletableFuture.completedFuture(new BlockRead(cached, true));
    }
    misses.increment();
    loadMiss(id, loader).whenComplete((data, error) -> {
      if (error == null) {
        dram.put(id, data);
        fills.increment();
      }
      inFlight.remove(id, mine);
      if (error != null) {
        mine.completeExceptionally(error);
      } else {
        mine.complete(data);
      }
    });
    return mine.thenApply(data -> new BlockRead(data, false));
  }

  /** The miss path below DRAM; a disk tier will be consulted here before the loader. */
  private CompletableFuture<byte[]> loadMiss(BlockId id, BlockLoader loader) {
    try {
      CompletableFuture<byte[]> load = loader.load(id);
      return load != null
          ? load
          : CompletableFuture.failedFuture(new IllegalStateException("Loader returned null for " + id));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  public long hits() {
    return hits.sum();
  }

  /** Lookups that started a load. */
  public long misses() {
    return misses.sum();
  }

  /** Lookups that joined a load already in flight. */
  public long coalesced() {
    return coalesced.sum();
  }

  public long fills() {
    return fills.sum();
  }

  public long evictions() {
    return dram.evictions();
  }

  public long dramBytes() {
    return dram.residentBytes();
  }

  public long dramCapacityBytes() {
    return dram.capacityBytes();
  }

  public void invalidateAll() {
    dram.invalidateAll();
  }
}
