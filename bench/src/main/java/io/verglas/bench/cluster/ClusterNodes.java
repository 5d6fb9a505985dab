package io.verglas.bench.cluster;

import io.verglas.cache.CacheNode;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.origin.s3.S3Origin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cache nodes under test, all in this JVM on loopback, reading one latency-injected origin:
 * {@code count} members of one cache cluster (or one node alone), each with the same DRAM
 * ceiling and no NVMe tier, so that what a node can hold is exactly its DRAM.
 */
final class ClusterNodes implements AutoCloseable {
  static final String SECRET = "bench-cluster-secret-0123456789";
  private final URI origin;
  private final long dramBytes;
  private final int blockBytes;
  private final List<Integer> gossipPorts = new ArrayList<>();
  private final CacheNode[] nodes;
  private final S3Origin[] origins;

  ClusterNodes(URI origin, int count, long dramBytes, int blockBytes) {
    this.origin = origin;
    this.dramBytes = dramBytes;
    this.blockBytes = blockBytes;
    this.nodes = new CacheNode[count];
    this.origins = new S3Origin[count];
    if (count > 1) {
      for (int i = 0; i < count; i++) {
        gossipPorts.add(freePort());
      }
    }
    for (int i = 0; i < count; i++) {
      start(i);
    }
  }

  /** Starts node {@code i} (again: under the same id, with an empty cache). */
  void start(int i) {
    origins[i] = S3Origin.builder().endpoint(origin).anonymous().maxConnections(64).build();
    CacheNode.Builder node = CacheNode.builder().allowAnonymous(true).origin(origins[i])
        .blockSize(blockBytes).dramCapacityBytes(dramBytes)
        .immutableObjects((bucket, key) -> true); // the workload's objects never change
    if (!gossipPorts.isEmpty()) {
      ClusterConfig.Builder cluster = ClusterConfig.builder().nodeId("node-" + (i + 1))
          .bindHost("127.0.0.1").gossipPort(gossipPorts.get(i)).peerPort(0).secret(SECRET)
          .capacityBytes(dramBytes).failureTimeout(Duration.ofMillis(1500));
      gossipPorts.forEach(port -> cluster.seed("127.0.0.1:" + port));
      node.cluster(cluster.build());
    }
    nodes[i] = node.build().start();
  }

  /** Stops node {@code i} as a crash would: no leave message, its sockets closed. */
  void kill(int i) {
    nodes[i].cluster().halt();
    nodes[i].close();
    origins[i].close();
    nodes[i] = null;
  }

  CacheNode node(int i) {
    return nodes[i];
  }

  int size() {
    return nodes.length;
  }

  /** Waits until every running node sees {@code members} members. */
  void awaitMembers(int members, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (CacheNode node : nodes) {
        if (node != null && node.cluster().view().members().size() != members) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("Cannot measure the cluster: its nodes did not see "
        + members + " members within " + timeout);
  }

  @Override
  public void close() {
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null) {
        nodes[i].close();
        origins[i].close();
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port for the cache cluster", e);
    }
  }
}
