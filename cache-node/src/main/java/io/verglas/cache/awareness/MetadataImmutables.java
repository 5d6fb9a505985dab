package io.verglas.cache.awareness;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.verglas.cache.ImmutableObjects;
import java.util.Objects;

/**
 * Immutability learned from table metadata, over a fallback (the path heuristics).
 *
 * <p>Design: every object a walked metadata file references (manifest lists, manifests, data,
 * delete and statistics files) is immutable by Iceberg's contract, whatever its path; metadata
 * is the authoritative source, paths only a guess. Keys the fallback already calls immutable are
 * not stored (they would change no answer), so the set holds only what the heuristics miss, such
 * as data files under a custom {@code write.data.path}. The set is bounded by an entry count
 * (frequency-aware eviction); an evicted key falls back to the heuristics, which at worst
 * revalidates it after the node's TTL. A lookup is one concurrent-map read, safe on the request
 * path.
 */
final class MetadataImmutables implements ImmutableObjects {
  private record Key(String bucket, String key) {}

  private final ImmutableObjects fallback;
  private final Cache<Key, Boolean> learned;

  MetadataImmutables(ImmutableObjects fallback, long maxEntries) {
    if (maxEntries < 0) {
      throw new IllegalArgumentException("Invalid immutable key limit: " + maxEntries + " (must be >= 0)");
    }
    this.fallback = Objects.requireNonNull(fallback, "fallback");
    this.learned = Caffeine.newBuilder().maximumSize(maxEntries).executor(Runnable::run).build();
  }

  @Override
  public boolean isImmutable(String bucket, String key) {
    return fallback.isImmutable(bucket, key) || learned.getIfPresent(new Key(bucket, key)) != null;
  }

  /** Records that table metadata references this object. */
  void learn(String bucket, String key) {
    if (!fallback.isImmutable(bucket, key)) {
      learned.put(new Key(bucket, key), Boolean.TRUE);
    }
  }

  /** Keys held now (an estimate while evictions are pending). */
  long size() {
    learned.cleanUp();
    return learned.estimatedSize();
  }
}
