package io.verglas.cache.writeback.peer;

import io.verglas.cache.cluster.Cluster;
import io.verglas.cache.cluster.placement.Member;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** A cache node's {@link Cluster} as write-back's {@link PeerTransport}. */
public record ClusterTransport(Cluster cluster) implements PeerTransport {
  public ClusterTransport {
    Objects.requireNonNull(cluster, "cluster");
  }

  @Override
  public String selfId() {
    return cluster.nodeId();
  }

  @Override
  public List<Member> members() {
    return cluster.view().members();
  }

  @Override
  public CompletableFuture<byte[]> send(Member member, byte[] request) {
    return cluster.writeBack(member, request);
  }
}
