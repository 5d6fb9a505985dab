package io.verglas.cache.block;

import java.util.concurrent.CompletableFuture;

/** Fetches a block that no tier holds, typically with a version-checked origin range read. */
@FunctionalInterface
public interface BlockLoader {
  CompletableFuture<byte[]> load(BlockId id);

  /**
   * The block with where it came from; a loader that may answer with another node's copy says
   * so here. By default every block is an origin read.
   */
  default CompletableFuture<BlockFill> fill(BlockId id) {
    CompletableFuture<byte[]> load = load(id);
    return load == null ? null : load.thenApply(BlockFill::fromOrigin);
  }
}
