package io.verglas.catalog;

import static io.verglas.catalog.TestingPostgres.sql;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.Closeable;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two catalogs, each in a schema of its own in one PostgreSQL database (the machine's,
 * {@link TestingPostgres}): the second gets its own tables although the first schema already
 * holds a catalog's, which Iceberg's {@code JdbcCatalog} alone takes for its own
 * (apache/iceberg#11862).
 */
class JdbcCatalogTablesTest {
  private static final String SERVER = TestingPostgres.SERVER;
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private final String first = TestingPostgres.uniqueName();
  private final String second = TestingPostgres.uniqueName();

  @AfterEach
  void dropSchemas() throws Exception {
    sql("DROP SCHEMA IF EXISTS " + first + " CASCADE");
    sql("DROP SCHEMA IF EXISTS " + second + " CASCADE");
  }

  @Test
  void aCatalogInItsOwnSchemaGetsItsOwnTablesBesideAnotherCatalog() throws Exception {
    createTableIn(first);
    createTableIn(second);

    for (String schema : new String[] {first, second}) {
      assertThat(count("SELECT count(*) FROM " + schema + ".iceberg_tables")).isEqualTo(1);
      assertThat(count("SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
          + schema + "' AND table_name = 'iceberg_tables' AND column_name = 'iceberg_type'"))
          .isEqualTo(1);
    }
  }

  @Test
  void doesNothingWhenTheTablesExistOrTheCatalogIsNotOnPostgresql() throws Exception {
    createTableIn(first);
    JdbcCatalogSetup.ensure(Map.of("uri", uri(first))); // present: untouched
    JdbcCatalogSetup.ensure(Map.of("uri", "jdbc:sqlite:/nonexistent/x.db"));
    JdbcCatalogSetup.ensure(Map.of("uri", uri(second), "jdbc.init-catalog-tables", "false"));

    assertThat(count("SELECT count(*) FROM " + first + ".iceberg_tables")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '"
        + second + "'")).isZero();
  }

  private void createTableIn(String schema) throws Exception {
    sql("CREATE SCHEMA IF NOT EXISTS " + schema);
    Catalog catalog = Catalogs.load("tables", Catalogs.jdbc(uri(schema), "memory://w/" + schema,
        Map.of("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO")));
    try {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("ns"));
      catalog.createTable(TableIdentifier.of("ns", "t"), SCHEMA);
    } finally {
      ((Closeable) catalog).close();
    }
  }

  private static String uri(String schema) {
    return SERVER + "&currentSchema=" + schema;
  }

  private static long count(String sql) throws Exception {
    return Long.parseLong(TestingPostgres.query(sql).get(0));
  }
}
