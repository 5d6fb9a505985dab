package io.verglas.cache.cluster.peer;

import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockRead;
import java.util.concurrent.CompletableFuture;

/** What a node does for its peers. */
public interface PeerService {
  /**
   * {@code length} bytes of block {@code id} from this node's own tiers, filled from the origin
   * on a miss through the block cache's singleflight (so every node's requests for one cold
   * block cost one origin read), never from another peer.
   */
  CompletableFuture<BlockRead> read(BlockId id, int length);

  /** Drops this node's resolved ETag of the key: a peer wrote it. */
  void forget(String bucket, String key);

  /**
   * The block's owner offers a standby copy of {@code length} bytes of block {@code id}: this
   * node takes it (asynchronously) if its standby budget allows. Returns at once.
   */
  void replicate(BlockId id, int length);
}
