package io.verglas.cache.awareness;

import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.MetadataStore;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * What the awareness component needs of the cache node it runs in.
 *
 * @param reads the node's read primitives
 * @param metadataStore the metadata store, or null when the node runs without one
 * @param blocks the block cache
 * @param blockSize the node's block size
 * @param clientsWaiting true while client requests wait for an origin slot (warming yields)
 */
public record NodeCaches(NodeReads reads, MetadataStore metadataStore, BlockCache blocks,
    int blockSize, BooleanSupplier clientsWaiting) {
  public NodeCaches {
    Objects.requireNonNull(reads, "reads");
    Objects.requireNonNull(blocks, "blocks");
    Objects.requireNonNull(clientsWaiting, "clientsWaiting");
    if (blockSize <= 0) {
      throw new IllegalArgumentException("Invalid block size: " + blockSize);
    }
  }
}
