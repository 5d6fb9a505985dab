package io.verglas.cache.block;

/**
 * Decides whether a block may enter a tier.
 *
 * <p>Design: a tier with room takes every block; a full tier (one that would have to evict to
 * take the block) takes only blocks that have been asked for at least twice recently, as counted
 * by a {@link FrequencySketch} of block lookups. This is TinyLFU's doorkeeper idea in its
 * simplest form: a one-pass scan (a full-table read, a compaction) touches each block once and
 * therefore cannot flush a full cache, while a block that is read again is admitted on its
 * second miss. Which entry makes room is the tier's eviction order (Caffeine's W-TinyLFU order),
 * so the frequency comparison between candidate and victim happens there.
 *
 * <p>Replicas (blocks a cache cluster's node took from the block's owner) enter a tier only
 * where they displace nothing: the owner keeps the block, so a replica saves a peer hop, while
 * an evicted owned block costs an origin read for the whole cluster. A node's spare room thus
 * holds replicas, and its owned blocks never make way for them.
 */
final class Admission {
  static final int MIN_FREQUENCY_UNDER_PRESSURE = 2;

  private final FrequencySketch sketch;

  Admission(long expectedEntries) {
    this.sketch = new FrequencySketch(expectedEntries);
  }

  /** Counts one lookup of {@code id}. */
  void record(BlockId id) {
    sketch.increment(hash(id));
  }

  int frequency(BlockId id) {
    return sketch.frequency(hash(id));
  }

  /** True if a tier holding {@code resident} of {@code capacity} bytes should take the block. */
  boolean admit(BlockId id, long length, long resident, long capacity) {
    if (resident + length <= capacity) {
      return true;
    }
    return frequency(id) >= MIN_FREQUENCY_UNDER_PRESSURE;
  }

  /** True if a tier holding {@code resident} of {@code capacity} bytes should take a replica. */
  boolean admitReplica(long length, long resident, long capacity) {
    return resident + length <= capacity;
  }

  static long hash(BlockId id) {
    long h = id.bucket().hashCode();
    h = h * 0x9E3779B97F4A7C15L + id.key().hashCode();
    h = h * 0x9E3779B97F4A7C15L + id.etag().hashCode();
    h = h * 0x9E3779B97F4A7C15L + id.blockSize();
    h = h * 0x9E3779B97F4A7C15L + id.index();
    return h ^ (h >>> 32);
  }
}
