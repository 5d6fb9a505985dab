package io.verglas.bench.stack;

import io.verglas.catalog.Catalogs;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;

/** A SQLite catalog with namespace {@code bench} and its warehouse in a local directory. */
public record BenchCatalog(Catalog catalog, Map<String, String> properties)
    implements AutoCloseable {
  /** A new catalog in {@code dir} ({@code catalog.db}, {@code warehouse/}). */
  public static BenchCatalog create(Path dir) {
    Map<String, String> properties = Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        dir.resolve("warehouse").toUri().toString(), Map.of());
    Catalog catalog = Catalogs.load("bench", properties);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("bench"));
    return new BenchCatalog(catalog, properties);
  }

  @Override
  public void close() throws Exception {
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }
}
