package io.verglas.cli.cachenode;

import io.verglas.cache.cluster.ClusterConfig;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The cache cluster flags of {@code verglas cache-node}: without {@code --cluster-node-id} the
 * node works alone; with it the node joins the members its seeds name, sharing blocks (and,
 * with write-back, placing one fragment of a write per member). The secret comes from the
 * environment ({@link NodeKeys}), never from the command line.
 */
public final class ClusterFlags {
  @Option(names = "--cluster-node-id", paramLabel = "ID", description = "Join a cache cluster as this member: "
      + "a stable id, unique in the cluster (keep it across restarts); needs --cluster-gossip-port, seeds "
      + "and the cluster secret in the environment (default: none, the node works alone)")
  String nodeId;

  @Option(names = "--cluster-host", paramLabel = "ADDRESS", description = "Address the gossip and peer ports "
      + "bind to, and the other members reach this node at (default: --host)")
  String host;

  @Option(names = "--cluster-gossip-port", paramLabel = "PORT", description = "The membership port the other "
      + "members' seeds name")
  Integer gossipPort;

  @Option(names = "--cluster-peer-port", paramLabel = "PORT", description = "The peer port: blocks and "
      + "write-back fragments between members (default: 0, a free port, told to the others by gossip)")
  Integer peerPort;

  @Option(names = "--cluster-seed", paramLabel = "HOST:PORT", description = "The gossip address of a member to "
      + "join through (repeatable; this node's own may be among them)")
  List<String> seeds = new ArrayList<>();

  /**
   * The membership settings, or null without {@code --cluster-node-id}.
   *
   * @param defaultHost the node's {@code --host}, the cluster's address unless {@code --cluster-host}
   * @param secret the cluster's secret from the environment, or null when not set
   * @throws IllegalArgumentException naming what is missing or invalid
   */
  public ClusterConfig config(String defaultHost, String secret) {
    if (nodeId == null) {
      if (host != null || gossipPort != null || peerPort != null || !seeds.isEmpty()) {
        throw new IllegalArgumentException("Cannot use the --cluster-* flags without --cluster-node-id: "
            + "the node works alone");
      }
      return null;
    }
    if (gossipPort == null || seeds.isEmpty() || secret == null || secret.isBlank()) {
      throw new IllegalArgumentException("Cannot join a cache cluster as " + nodeId + ": it needs "
          + "--cluster-gossip-port, at least one --cluster-seed and " + NodeKeys.CLUSTER_SECRET + " set");
    }
    try {
      ClusterConfig.Builder cluster = ClusterConfig.builder().nodeId(nodeId)
          .bindHost(host != null ? host : defaultHost).gossipPort(gossipPort).secret(secret);
      if (peerPort != null) {
        cluster.peerPort(peerPort);
      }
      seeds.forEach(cluster::seed);
      return cluster.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot join a cache cluster as " + nodeId + ": " + e.getMessage(), e);
    }
  }
}
