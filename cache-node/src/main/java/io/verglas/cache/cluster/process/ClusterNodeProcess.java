package io.verglas.cache.cluster.process;

import io.verglas.cache.CacheNode;
import io.verglas.cache.ImmutableObjects;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.s3.S3Origin;
import io.verglas.cache.writeback.WriteBackConfig;

/**
 * One cache node of a cluster in a process of its own, for kill drills and the cluster
 * benchmark ({@link ChildClusterNode} starts it): arguments are {@link NodeSettings}; the
 * environment carries the cluster secret ({@value #SECRET_ENV}) and the S3 keys clients sign
 * with ({@value #ACCESS_KEY_ENV}, {@value #SECRET_KEY_ENV}; without them the node serves
 * anonymous requests). It prints {@code READY <s3 port> <admin port>} once started and closes
 * (leaving the cluster) when its standard input ends; a SIGKILL ends it without a goodbye.
 */
public final class ClusterNodeProcess {
  public static final String SECRET_ENV = "VERGLAS_CLUSTER_SECRET";
  public static final String ACCESS_KEY_ENV = "VERGLAS_NODE_ACCESS_KEY";
  public static final String SECRET_KEY_ENV = "VERGLAS_NODE_SECRET_KEY";
  /** The cell size of a child node's write-back (k=2, m=1, w=3). */
  public static final int WRITE_BACK_CELL_BYTES = 64 * 1024;

  private ClusterNodeProcess() {}

  public static void main(String[] args) throws Exception {
    NodeSettings settings = NodeSettings.parse(args);
    String secret = System.getenv(SECRET_ENV);
    if (secret == null) {
      throw new IllegalStateException("Cannot start the cluster node: " + SECRET_ENV + " is not set");
    }
    try (Origin origin = origin(settings); CacheNode node = node(settings, origin, secret).build().start()) {
      System.out.println("READY " + node.endpoint().getPort() + " " + node.adminEndpoint().getPort());
      System.out.flush();
      while (System.in.read() >= 0) {
        // runs until the parent closes our standard input
      }
    }
  }

  private static Origin origin(NodeSettings settings) {
    return settings.originDir() != null ? new LocalDirectoryOrigin(settings.originDir())
        : S3Origin.builder().endpoint(settings.originEndpoint()).anonymous().maxConnections(64).build();
  }

  private static CacheNode.Builder node(NodeSettings settings, Origin origin, String secret) {
    ClusterConfig.Builder cluster = ClusterConfig.builder().nodeId(settings.nodeId())
        .gossipPort(settings.gossipPorts().get(settings.index())).secret(secret)
        .peerTimeout(settings.peerTimeout()).failureTimeout(settings.failureTimeout())
        .hotReplicaBytes(settings.hotReplicaBytes());
    settings.gossipPorts().forEach(port -> cluster.seed("127.0.0.1:" + port));
    CacheNode.Builder node = CacheNode.builder().origin(origin)
        .blockSize(settings.blockBytes()).dramCapacityBytes(settings.dramBytes())
        .metadataStoreCapacityBytes(0).adminPort(0).cluster(cluster.build());
    String accessKey = System.getenv(ACCESS_KEY_ENV);
    if (accessKey != null) {
      node.credentials(accessKey, System.getenv(SECRET_KEY_ENV));
    } else {
      node.allowAnonymous(true);
    }
    if (settings.immutableObjects()) {
      node.immutableObjects((bucket, key) -> true);
    }
    if (settings.writeBackDir() != null) {
      String scope = settings.writeBackScope();
      int slash = scope.indexOf('/');
      node.writeBack(WriteBackConfig.builder().directory(settings.writeBackDir()).dataFragments(2)
          .parityFragments(1).ackFragments(3).cellBytes(WRITE_BACK_CELL_BYTES)
          .enable(scope.substring(0, slash), scope.substring(slash + 1)).build());
    }
    return node;
  }
}
