package io.verglas.cache.block;

import java.util.concurrent.CompletableFuture;

/** Fetches a block that no tier holds, typically with a version-checked origin range read. */
@FunctionalInterface
public interface BlockLoader {
  CompletableFuture<byte[]> load(BlockId id);
}
