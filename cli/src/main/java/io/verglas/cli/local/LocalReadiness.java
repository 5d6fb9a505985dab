package io.verglas.cli.local;

import io.verglas.cli.status.Readiness;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What {@code /ready} checks in the local stack, each through the path the stack itself uses:
 * the origin through the cache node (a HEAD of the warehouse bucket), the catalog (a namespace
 * listing) and the object store's writability for the WAL (a small probe object written and
 * deleted with the jobs' key, outside every table and the WAL's own prefix).
 */
final class LocalReadiness {
  static final String PROBE_KEY = "_verglas/ready/probe";
  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  private LocalReadiness() {}

  static Readiness of(Supplier<S3Client> s3, String bucket, Supplier<Catalog> catalog) {
    Map<String, Readiness.Check> checks = new LinkedHashMap<>();
    checks.put("origin", () -> started(s3, "the S3 endpoint").headBucket(b -> b.bucket(bucket)));
    checks.put("catalog", () -> {
      if (started(catalog, "the catalog") instanceof SupportsNamespaces namespaces) {
        namespaces.listNamespaces();
      }
    });
    checks.put("wal", () -> {
      S3Client client = started(s3, "the S3 endpoint");
      client.putObject(b -> b.bucket(bucket).key(PROBE_KEY), RequestBody.fromString("ready"));
      client.deleteObject(b -> b.bucket(bucket).key(PROBE_KEY));
    });
    return new Readiness(checks, TIMEOUT);
  }

  private static <T> T started(Supplier<T> part, String name) {
    T value = part.get();
    if (value == null) {
      throw new IllegalStateException(name + " is starting");
    }
    return value;
  }
}
