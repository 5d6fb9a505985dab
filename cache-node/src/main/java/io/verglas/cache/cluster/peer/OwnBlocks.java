package io.verglas.cache.cluster.peer;

import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockRead;
import java.util.concurrent.CompletableFuture;

/**
 * The owner's side of a peer fetch: {@code length} bytes of block {@code id} from this node's
 * own tiers, filled from the origin on a miss through the block cache's singleflight (so every
 * node's requests for one cold block cost one origin read), never from another peer.
 */
@FunctionalInterface
public interface OwnBlocks {
  CompletableFuture<BlockRead> read(BlockId id, int length);
}
