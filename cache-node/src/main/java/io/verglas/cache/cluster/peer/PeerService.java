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

  /**
   * Serves a write-back request (fragments and journal records, {@code
   * writeback.peer.FragmentProtocol}) that arrived on peer connection {@code connection}; the
   * answer's bytes, or a failure whose message goes back to the requester. Never on the caller's
   * (network) thread.
   */
  default CompletableFuture<byte[]> writeBack(long connection, byte[] request) {
    return CompletableFuture.failedFuture(new IllegalStateException(
        "Cannot serve a write-back request: write-back is not enabled on this node"));
  }

  /** Peer connection {@code connection} closed: what it left unfinished is abandoned. */
  default void disconnected(long connection) {}
}
