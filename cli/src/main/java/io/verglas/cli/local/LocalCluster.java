package io.verglas.cli.local;

import io.verglas.cache.CacheNode;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.net.LoopbackPorts;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The cache nodes of {@code ./verglas local --nodes N} on this machine: node i (from 0) serves S3
 * at the S3 port plus {@value #PORT_STEP} × i (or a free port when the S3 port is 0) and, with
 * more than one node, joins the others in a cache cluster over loopback (membership ports picked
 * free at start, every node a seed). The cluster secret is derived from the stack's S3 secret
 * key, so it needs no credentials of its own and stays the same across restarts.
 */
final class LocalCluster {
  static final int PORT_STEP = 10;
  private static final String HOST = LoopbackPorts.HOST;

  private final LocalConfig config;
  private final List<Integer> gossipPorts;
  private final String secret;

  private LocalCluster(LocalConfig config, List<Integer> gossipPorts, String secret) {
    this.config = config;
    this.gossipPorts = gossipPorts;
    this.secret = secret;
  }

  static LocalCluster plan(LocalConfig config, LocalCredentials credentials) {
    List<Integer> ports = config.nodes() == 1 ? List.of()
        : IntStream.range(0, config.nodes()).mapToObj(i -> LoopbackPorts.free("the cache cluster",
            ClusterConfig.FAILURE_DETECTION_PORT_OFFSET)).toList();
    return new LocalCluster(config, ports, secret(credentials.secretKey()));
  }

  int nodes() {
    return config.nodes();
  }

  int s3Port(int node) {
    return config.s3Port() == 0 ? 0 : config.s3Port() + PORT_STEP * node;
  }

  /** Makes {@code builder} node {@code node} of the cluster; nothing for a single node. */
  CacheNode.Builder join(CacheNode.Builder builder, int node) {
    if (gossipPorts.isEmpty()) {
      return builder;
    }
    ClusterConfig.Builder cluster = ClusterConfig.builder()
        .nodeId("node-" + (node + 1))
        .bindHost(HOST)
        .gossipPort(gossipPorts.get(node))
        .peerPort(0)
        .secret(secret);
    gossipPorts.forEach(port -> cluster.seed(HOST + ":" + port));
    return builder.cluster(cluster.build());
  }

  private static String secret(String s3SecretKey) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(("verglas-cache-cluster:" + s3SecretKey).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot derive the cache cluster's secret: " + e, e);
    }
  }

}
