package io.verglas.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdbcMetadataLocationsTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir
  Path dir;

  @Test
  void oneListingGivesEveryTablesCurrentMetadataLocation() {
    Map<String, String> properties = Map.of("type", "jdbc", "uri",
        "jdbc:sqlite:" + dir.resolve("catalog.db"), "warehouse", dir.resolve("warehouse").toUri().toString());
    Catalog catalog = Catalogs.load("verglas", properties);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("a"));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("a", "b"));
    Table t1 = catalog.createTable(TableIdentifier.of(Namespace.of("a"), "t1"), SCHEMA);
    Table t2 = catalog.createTable(TableIdentifier.of(Namespace.of("a", "b"), "orders.v2"), SCHEMA);
    t1.updateProperties().set("k", "v").commit();

    Map<TableIdentifier, String> listed = new HashMap<>();
    new JdbcMetadataLocations("verglas", properties).forEach(listed::put);
    assertThat(listed).containsOnly(
        Map.entry(TableIdentifier.of(Namespace.of("a"), "t1"), location(catalog, t1)),
        Map.entry(TableIdentifier.of(Namespace.of("a", "b"), "orders.v2"), location(catalog, t2)));

    Map<TableIdentifier, String> otherCatalog = new HashMap<>();
    new JdbcMetadataLocations("other", properties).forEach(otherCatalog::put);
    assertThat(otherCatalog).isEmpty();
  }

  @Test
  void aDatabaseWithoutTheCatalogFailsNamingIt() {
    String uri = "jdbc:sqlite:" + dir.resolve("empty.db");
    assertThatThrownBy(() -> new JdbcMetadataLocations("verglas", Map.of("uri", uri)).forEach((t, l) -> { }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot list the metadata locations of catalog verglas in " + uri);
  }

  /**
   * On PostgreSQL, a catalog whose URI names neither user nor schema ({@link TestingCatalogRole}):
   * only a connection as the catalog's {@code jdbc.user} finds its tables.
   */
  @Test
  void listsTheTablesOfACatalogThatLogsInAsItsOwnUser() throws Exception {
    try (TestingCatalogRole role = TestingCatalogRole.create()) {
      Catalog catalog = Catalogs.load("verglas", role.catalogProperties());
      try {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("a"));
        Table table = catalog.createTable(TableIdentifier.of("a", "t"), SCHEMA);

        Map<TableIdentifier, String> listed = new HashMap<>();
        new JdbcMetadataLocations("verglas", role.catalogProperties()).forEach(listed::put);
        assertThat(listed).containsOnly(Map.entry(TableIdentifier.of("a", "t"), location(catalog, table)));
      } finally {
        ((Closeable) catalog).close();
      }
    }
  }

  private static String location(Catalog catalog, Table table) {
    return ((HasTableOperations) table).operations().refresh().metadataFileLocation();
  }
}
