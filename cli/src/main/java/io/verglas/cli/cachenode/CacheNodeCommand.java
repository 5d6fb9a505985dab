package io.verglas.cli.cachenode;

import io.verglas.cli.foreground.Foreground;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.writeback.WriteBackConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code verglas cache-node}: one cache node by itself, the cache role of a deployment whose
 * roles run apart (docker/compose.yaml): the S3 endpoint over an S3-compatible origin, its admin
 * port, and with {@code --catalog-uri} the REST catalog at {@code /catalog}.
 *
 * <p>The node itself is {@link StandaloneCacheNode}. What {@code verglas local} adds around its
 * cache node is not here: no change feed (the node's metadata follows commits through
 * {@code /catalog}'s short load cache and its own misses, not through commit events), no query
 * service. With {@code --cluster-node-id} it joins a cache cluster ({@link ClusterFlags}), and
 * its write-back then places one fragment of a write per member. Keys come from the
 * environment ({@link NodeKeys}), never from the command line, where {@code ps} shows them.
 */
@Command(name = "cache-node", mixinStandardHelpOptions = true,
    description = "Run one cache node by itself: the S3 endpoint with its block cache over an "
        + "S3-compatible origin (MinIO, S3), its admin port (/health, /stats, /metrics) and, "
        + "with --catalog-uri, the Iceberg REST catalog at /catalog; with --cluster-node-id a "
        + "member of a cache cluster. Keys come from the "
        + "environment: " + NodeKeys.DESCRIPTION)
public final class CacheNodeCommand implements Callable<Integer> {
  @Option(names = "--origin-endpoint", required = true, paramLabel = "URL",
      description = "The origin's S3 endpoint, e.g. http://minio:9000 (path-style requests)")
  URI originEndpoint;

  @Option(names = "--origin-region", description = "The origin's region (default: us-east-1)")
  String originRegion = "us-east-1";

  @Option(names = "--bucket", description = "The warehouse bucket, created at the origin when "
      + "missing (default: warehouse)")
  String bucket = "warehouse";

  @Option(names = "--host", description = "Address of the S3 and admin ports (default: 127.0.0.1)")
  String host = "127.0.0.1";

  @Option(names = "--port", description = "S3 endpoint port (default: 9100)")
  int port = 9100;

  @Option(names = "--admin-port", description = "Admin port: /health, /stats, /metrics (default: 9101)")
  int adminPort = 9101;

  @Option(names = "--region", description = "The region the S3 endpoint signs for (default: us-east-1)")
  String region = "us-east-1";

  @Option(names = "--dram-cache-bytes", description = "The DRAM tier (default: 536870912)")
  long dramCacheBytes = 512L << 20;

  @Option(names = "--spool-dir", description = "Where large uploads are staged (default: cache-node-spool)")
  Path spoolDir = Path.of("cache-node-spool");

  @Option(names = "--catalog-uri", description = "Serve /catalog over the Iceberg JDBC catalog "
      + "on this database, e.g. jdbc:postgresql://postgres:5432/verglas?user=verglas (default: "
      + "no /catalog)")
  String catalogUri;

  @Mixin WriteBackFlags writeBack;

  @Option(names = "--write-back-dir", paramLabel = "WRITE_BACK_DIR", description = "Where buffered writes' "
      + "fragments and journal live (default: cache-node-writeback)")
  Path writeBackDir = Path.of("cache-node-writeback");

  @Mixin ClusterFlags cluster;

  @Override
  public Integer call() throws Exception {
    NodeKeys keys = NodeKeys.from(System.getenv());
    StandaloneCacheNode.Options options = options(keys);
    WriteBackConfig writeBackConfig = options.writeBack();
    StandaloneCacheNode node = StandaloneCacheNode.start(options, keys);
    Foreground foreground = Foreground.stopOnExit("Stopping the cache node ...", node);
    System.out.println("The cache node is up.");
    System.out.println("  S3 endpoint   " + node.endpoint() + "  (bucket " + bucket + ", origin "
        + originEndpoint + ")");
    System.out.println("  Admin         " + node.adminEndpoint() + "/health");
    if (catalogUri != null) {
      System.out.println("  REST catalog  " + node.catalogUri());
    }
    if (options.cluster() != null) {
      System.out.println("  Cluster       " + options.cluster().nodeId() + ", gossip "
          + options.cluster().bindHost() + ":" + options.cluster().gossipPort() + ", seeds "
          + options.cluster().seeds());
    }
    if (writeBackConfig != null) {
      System.out.println("  Write-back    " + WriteBackFlags.describe(writeBackConfig));
    }
    foreground.await();
    return 0;
  }

  /** The node's options from the flags; in a cluster, write-back places one fragment per member. */
  StandaloneCacheNode.Options options(NodeKeys keys) {
    ClusterConfig clusterConfig = cluster.config(host, keys.clusterSecret());
    WriteBackConfig writeBackConfig = writeBack.config(bucket, writeBackDir, clusterConfig == null);
    return new StandaloneCacheNode.Options(originEndpoint, originRegion, bucket, host, port, adminPort, region,
        dramCacheBytes, spoolDir, catalogUri, writeBackConfig, clusterConfig);
  }
}
