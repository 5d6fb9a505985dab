package io.verglas.bench.writeback;

import io.verglas.cache.CacheNode;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.net.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Three cache nodes in this process forming a cache cluster on loopback, each with write-back
 * (k=2, m=1, w=3: one fragment on every node) over one origin; a node can be halted (gone
 * without a goodbye, as a crash) and started again on its own write-back directory.
 */
final class WriteBackCluster implements AutoCloseable {
  private static final String GOSSIP = "a write-back cluster node's gossip listener";
  static final int SIZE = 3;
  private static final String SECRET = "a-bench-cluster-secret";

  private final Path dir;
  private final Origin origin;
  private final int[] ports = new int[SIZE];
  private final CacheNode[] nodes = new CacheNode[SIZE];

  WriteBackCluster(Path dir, Origin origin) throws InterruptedException {
    this.dir = dir;
    this.origin = origin;
    for (int i = 0; i < SIZE; i++) {
      ports[i] = LoopbackPorts.free(GOSSIP);
    }
    try {
      for (int i = 0; i < SIZE; i++) {
        nodes[i] = start(i);
      }
      awaitMembers();
    } catch (RuntimeException | InterruptedException e) {
      close();
      throw e;
    }
  }

  CacheNode node(int i) {
    return nodes[i];
  }

  /** Halts node {@code i} (no leave message) and starts it again on its directory, once all see it back. */
  void crashAndRestart(int i) throws InterruptedException {
    nodes[i].cluster().halt();
    nodes[i].close();
    ports[i] = LoopbackPorts.free(GOSSIP);
    nodes[i] = start(i);
    awaitMembers();
  }

  private CacheNode start(int i) {
    ClusterConfig.Builder cluster = ClusterConfig.builder().nodeId("node-" + i).gossipPort(ports[i]).secret(SECRET)
        .peerTimeout(Duration.ofSeconds(10)).failureTimeout(Duration.ofMillis(1500));
    for (int port : ports) {
      cluster.seed("127.0.0.1:" + port);
    }
    WriteBackConfig writeBack = WriteBackConfig.builder().dataFragments(2).parityFragments(1).ackFragments(3)
        .directory(dir.resolve("writeback-" + i)).enable(AckRuns.BUCKET, "wb/")
        .propagationInterval(Duration.ofMillis(50)).build();
    return CacheNode.builder().allowAnonymous(true).origin(origin).cluster(cluster.build()).writeBack(writeBack)
        .build().start();
  }

  private void awaitMembers() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    for (CacheNode node : nodes) {
      while (node.cluster().view().members().size() != SIZE) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Cannot run the write-back cluster: no view of " + SIZE + " members in 2 min");
        }
        Thread.sleep(20);
      }
    }
  }

  /** Buffered changes not yet on the origin, over the three nodes. */
  long dirtyObjects() {
    long dirty = 0;
    for (CacheNode node : nodes) {
      dirty += node.writeBack().stats().dirtyObjects();
    }
    return dirty;
  }

  @Override
  public void close() {
    for (CacheNode node : nodes) {
      if (node != null) {
        node.close();
      }
    }
  }
}
