package io.verglas.cli.cachenode;

import io.verglas.access.ScopedTokens;
import io.verglas.cache.CacheNode;
import io.verglas.cache.catalog.RestCatalogConfig;
import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.origin.s3.S3Origin;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.catalog.Catalog;

/**
 * One cache node by itself over an S3-compatible origin ({@code verglas cache-node}): the
 * origin's bucket created when missing, the node with its admin port, and with a catalog URI
 * the REST catalog at {@code /catalog} over that JDBC catalog, whose FileIO reads and writes
 * through this node (so it is made once the node is bound; {@code /catalog} answers 503 until
 * then). {@link #close()} stops the node, then closes the catalog and the origin.
 */
public final class StandaloneCacheNode implements AutoCloseable {
  /**
   * Where the origin is, where the node listens, the catalog it serves (null: none), its
   * write-back settings (null: none, every PUT goes through) and its cache cluster (null: it
   * works alone; with write-back, local fragment stores then, one fragment per member in one).
   */
  public record Options(URI originEndpoint, String originRegion, String bucket, String host,
      int port, int adminPort, String region, long dramCacheBytes, Path spoolDir,
      String catalogUri, WriteBackConfig writeBack, ClusterConfig cluster) {}

  private final S3Origin origin;
  private final CacheNode node;
  private final Catalog catalog;

  private StandaloneCacheNode(S3Origin origin, CacheNode node, Catalog catalog) {
    this.origin = origin;
    this.node = node;
    this.catalog = catalog;
  }

  public static StandaloneCacheNode start(Options options, NodeKeys keys) {
    S3Origin origin = S3Origin.builder().endpoint(options.originEndpoint())
        .region(options.originRegion())
        .credentials(keys.originAccessKey(), keys.originSecretKey()).build();
    CacheNode node = null;
    try {
      try {
        origin.ensureBucket(options.bucket());
      } catch (IllegalStateException e) {
        throw new IllegalStateException("Cannot use the origin " + options.originEndpoint() + ": "
            + e.getCause().getMessage(), e.getCause());
      }
      AtomicReference<Catalog> catalog = new AtomicReference<>();
      node = builder(options, keys, origin, catalog).build().start();
      if (options.catalogUri() != null) {
        ObjectStoreEndpoint self = new ObjectStoreEndpoint(node.endpoint(), options.region(),
            keys.accessKey(), keys.secretKey(), options.bucket());
        Map<String, String> props =
            Catalogs.jdbc(options.catalogUri(), self.warehouse(), self.s3FileIoProperties());
        catalog.set(Catalogs.load("verglas", props));
      }
      return new StandaloneCacheNode(origin, node, catalog.get());
    } catch (RuntimeException e) {
      if (node != null) {
        node.close();
      }
      origin.close();
      throw e;
    }
  }

  private static CacheNode.Builder builder(Options options, NodeKeys keys, S3Origin origin,
      AtomicReference<Catalog> catalog) {
    CacheNode.Builder node = CacheNode.builder()
        .host(options.host())
        .port(options.port())
        .region(options.region())
        .credentials(keys.accessKey(), keys.secretKey())
        .origin(origin)
        .dramCapacityBytes(options.dramCacheBytes())
        .spoolDirectory(directory(options.spoolDir()))
        .adminPort(options.adminPort())
        .adminToken(keys.adminToken());
    if (keys.jobAccessKey() != null) {
      node.backgroundCredentials(keys.jobAccessKey(), keys.jobSecretKey());
    }
    ScopedTokens.fromEnvironment(System.getenv(), Clock.systemUTC()).ifPresent(node::scopedTokens);
    if (options.catalogUri() != null) {
      node.catalog(RestCatalogConfig.builder(catalog::get, keys.catalogToken()).build());
    }
    if (options.cluster() != null) {
      node.cluster(options.cluster());
    }
    if (options.writeBack() != null) {
      node.writeBack(options.writeBack());
    }
    return node;
  }

  private static Path directory(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the spool directory " + dir + ": "
          + e.getMessage(), e);
    }
  }

  /** The S3 endpoint. */
  public URI endpoint() {
    return node.endpoint();
  }

  /** The REST catalog's URI; the node must have been started with a catalog URI. */
  public URI catalogUri() {
    return node.catalogUri();
  }

  /** The node itself (its cluster view and write-back, for tests). */
  CacheNode node() {
    return node;
  }

  /** The admin endpoint's base URI. */
  public URI adminEndpoint() {
    return node.adminEndpoint();
  }

  @Override
  public void close() {
    node.close();
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        throw new IllegalStateException("Cannot close the catalog: " + e.getMessage(), e);
      }
    }
    origin.close();
  }
}
