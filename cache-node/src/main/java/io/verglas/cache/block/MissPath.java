package io.verglas.cache.block;

/**
 * What a client read's block miss tries before its origin loader: nothing on a single node
 * ({@link #ORIGIN}); in a cache cluster, the block's owner ({@code io.verglas.cache.cluster}).
 * Whatever it tries, the loader it returns must fall back to {@code origin}: a read never fails
 * because of a peer.
 */
@FunctionalInterface
public interface MissPath {
  /** Straight to the origin: the single-node path. */
  MissPath ORIGIN = (origin, objectSize) -> origin;

  /** The loader for blocks of a version of {@code objectSize} bytes whose origin read is {@code origin}. */
  BlockLoader loader(BlockLoader origin, long objectSize);
}
