package io.verglas.cache.block;

/**
 * One storage tier of the block cache: a bounded map from block id to immutable bytes. The tier
 * owns its eviction policy; {@link BlockCache} owns lookup order and fills.
 *
 * <p>Only the DRAM tier exists now, and it answers synchronously. A disk tier will answer
 * asynchronously and slot in behind DRAM on the miss path (see {@code BlockCache#loadMiss}).
 */
interface BlockTier {
  byte[] getIfPresent(BlockId id);

  void put(BlockId id, byte[] data);

  long residentBytes();

  long capacityBytes();

  long evictions();

  void invalidateAll();
}
