package io.verglas.cache.writeback.peer;

import io.verglas.cache.cluster.placement.Member;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The cluster as write-back uses it: this node's id, the live members and a way to reach each. */
public interface PeerTransport {
  /** This node's member id. */
  String selfId();

  /** The members of the current view, this node among them once it joined. */
  List<Member> members();

  /**
   * Sends a write-back request to {@code member}; completes with its answer within the peer
   * timeout, or exceptionally.
   */
  CompletableFuture<byte[]> send(Member member, byte[] request);
}
