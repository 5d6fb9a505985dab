package io.verglas.cache.block;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.atomic.LongAdder;

/**
 * The DRAM tier: a Caffeine cache weighted by block length with {@code maximumWeight} = capacity,
 * so eviction (W-TinyLFU) keeps the resident bytes at or below the ceiling.
 *
 * <p>Caffeine normally evicts on a background executor, which would let the weight run above the
 * ceiling until that task runs. Here maintenance runs on the calling thread and every insert is
 * followed by {@code cleanUp()}, so when {@link #put} returns the tier is within its ceiling. The
 * weight counts block bytes only, not per-entry object overhead (tens of bytes per MiB block).
 */
final class DramTier implements BlockTier {
  private final Cache<BlockId, byte[]> cache;
  private final long capacityBytes;
  private final LongAdder evictions = new LongAdder();

  DramTier(long capacityBytes) {
    this.capacityBytes = capacityBytes;
    this.cache = Caffeine.newBuilder()
        .maximumWeight(capacityBytes)
        .weigher((BlockId id, byte[] data) -> data.length)
        .executor(Runnable::run)
        .evictionListener((BlockId id, byte[] data, com.github.benmanes.caffeine.cache.RemovalCause cause) -> {
          if (cause.wasEvicted()) {
            evictions.increment();
          }
        })
        .build();
  }

  @Override
  public byte[] getIfPresent(BlockId id) {
    return cache.getIfPresent(id);
  }

  @Override
  public void put(BlockId id, byte[] data) {
    cache.put(id, data);
    cache.cleanUp();
  }

  @Override
  public long residentBytes() {
    return cache.policy().eviction().orElseThrow().weightedSize().orElse(0L);
  }

  @Override
  public long capacityBytes() {
    return capacityBytes;
  }

  @Override
  public long evictions() {
    return evictions.sum();
  }

  @Override
  public void invalidateAll() {
    cache.invalidateAll();
    cache.cleanUp();
  }
}
