package io.verglas.bench.stack;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.iceberg.catalog.Catalog;

/**
 * The storage every benchmark stands on: a local-directory origin behind a cache node's S3
 * endpoint on a random port, and a SQLite JDBC catalog, all in a temporary directory that
 * {@link #close()} deletes.
 */
public final class BenchStorage implements AutoCloseable {
  public static final String BUCKET = "warehouse";
  private final Path dir;
  private final CacheNode cache;
  private final ObjectStoreEndpoint endpoint;
  private final Catalog catalog;

  public BenchStorage(long dramBytes) throws IOException {
    this.dir = Files.createTempDirectory("verglas-bench-");
    Files.createDirectories(dir.resolve("origin").resolve(BUCKET));
    String access = "bench" + UUID.randomUUID().toString().substring(0, 8);
    String secret = UUID.randomUUID().toString();
    this.cache = CacheNode.builder().host("127.0.0.1").port(0).region("us-east-1")
        .credentials(access, secret).origin(new LocalDirectoryOrigin(dir.resolve("origin")))
        .dramCapacityBytes(dramBytes).build().start();
    this.endpoint = new ObjectStoreEndpoint(cache.endpoint(), "us-east-1", access, secret, BUCKET);
    this.catalog = Catalogs.load("bench", Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        endpoint.warehouse(), endpoint.s3FileIoProperties()));
  }

  public ObjectStoreEndpoint endpoint() {
    return endpoint;
  }

  public Catalog catalog() {
    return catalog;
  }

  @Override
  public void close() throws Exception {
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
    cache.close();
    TemporaryDirectory.deleteRecursively(dir);
  }
}
