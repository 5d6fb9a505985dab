package io.verglas.bench.cluster;

import io.verglas.cache.cluster.process.ChildClusterNode;
import io.verglas.cache.cluster.process.ClusterNodeProcess;
import io.verglas.cache.cluster.process.NodeSettings;
import io.verglas.net.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The cache nodes under test, each a process of its own ({@link ChildClusterNode}) on loopback,
 * reading one latency-injected origin: {@code count} members of one cache cluster (one alone
 * for the single-node figure), each with the same DRAM ceiling and no NVMe tier, so that what a
 * node's tiers hold is exactly its DRAM. Each node's peak resident set is kept per slot, the
 * highest over a slot's restarts.
 */
final class ClusterNodes implements AutoCloseable {
  static final String SECRET = "bench-cluster-secret-0123456789";
  private static final String GOSSIP = "a cache cluster node's gossip listener";
  private final List<Integer> gossipPorts = new ArrayList<>();
  private final NodeSettings.Builder settings;
  private final Path logs;
  private final ChildClusterNode[] nodes;
  private final long[] peakRssMb;
  private int started;

  ClusterNodes(URI origin, int count, long dramBytes, int blockBytes, long hotReplicaBytes, Path logs)
      throws IOException {
    this.nodes = new ChildClusterNode[count];
    this.peakRssMb = new long[count];
    this.logs = logs;
    for (int i = 0; i < count; i++) {
      gossipPorts.add(LoopbackPorts.free(GOSSIP));
    }
    this.settings = NodeSettings.builder(gossipPorts, blockBytes, dramBytes).originEndpoint(origin)
        .immutableObjects(true) // the workload's objects never change
        .hotReplicaBytes(hotReplicaBytes);
    try {
      for (int i = 0; i < count; i++) {
        start(i);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Starts node {@code i} (again: under the same id, with an empty cache, on a fresh gossip port). */
  void start(int i) throws IOException {
    if (started >= nodes.length) {
      gossipPorts.set(i, LoopbackPorts.free(GOSSIP)); // the old one may be taken by now
    }
    nodes[i] = ChildClusterNode.start(settings.index(i).build(), // with the ports as they are now
        Map.of(ClusterNodeProcess.SECRET_ENV, SECRET), logs.resolve("node-" + i + "-" + started + ".log"));
    started++;
  }

  /** SIGKILL of node {@code i}: no leave message, its sockets closed by the kernel. */
  void kill(int i) throws InterruptedException {
    nodes[i].kill();
    peakRssMb[i] = Math.max(peakRssMb[i], nodes[i].peakRssMb());
    nodes[i] = null;
  }

  ChildClusterNode node(int i) {
    return nodes[i];
  }

  int size() {
    return nodes.length;
  }

  /** Waits until every running node sees {@code members} members. */
  void awaitMembers(int members, Duration timeout) throws InterruptedException {
    for (ChildClusterNode node : nodes) {
      if (node != null) {
        node.awaitMembers(members, timeout);
      }
    }
  }

  /** Each node's peak resident set in MiB so far (the highest of a slot's processes). */
  List<Long> peakRssMb() {
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null) {
        peakRssMb[i] = Math.max(peakRssMb[i], nodes[i].peakRssMb());
      }
    }
    return Arrays.stream(peakRssMb).boxed().toList();
  }

  @Override
  public void close() {
    for (ChildClusterNode node : nodes) {
      if (node != null) {
        node.close();
      }
    }
  }
}
