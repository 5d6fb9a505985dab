package io.verglas.catalog;

import static io.verglas.catalog.TestingPostgres.query;
import static io.verglas.catalog.TestingPostgres.sql;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.Closeable;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The prefix indexes on Iceberg's JDBC catalog on the machine's PostgreSQL
 * ({@link TestingPostgres}, a schema of its own): a database holding the earlier index gets the
 * new one instead, a table's load finds its row by an index condition on its name whichever
 * index the planner picks, {@link Catalogs#load} creates them as the catalog's own
 * {@code jdbc.user}, and a user that may not create them still gets its catalog.
 */
class JdbcCatalogIndexesTest {
  private static final String DATABASE = TestingPostgres.DATABASE;
  private static final String SERVER = TestingPostgres.SERVER;
  private final String schema = TestingPostgres.uniqueName();
  private final String role = schema + "_user";

  @AfterEach
  void dropSchema() throws Exception {
    sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    sql("DROP ROLE IF EXISTS " + role);
  }

  @Test
  void catalogsLoadCreatesTheIndexesAsTheCatalogsUser() throws Exception {
    // the URI names neither user nor schema: only a connection as the catalog's user finds it
    try (TestingCatalogRole user = TestingCatalogRole.create()) {
      ((Closeable) Catalogs.load("indexes", user.catalogProperties())).close();

      String owned = "'" + user.schema() + "'";
      assertThat(query("SELECT indexname FROM pg_indexes WHERE schemaname = " + owned))
          .contains(JdbcCatalogIndexes.TABLES_INDEX, JdbcCatalogIndexes.PROPERTIES_INDEX);
      assertThat(query("SELECT tableowner FROM pg_tables WHERE schemaname = " + owned))
          .containsOnly(user.name()).hasSize(JdbcCatalogTables.TABLES.size());
    }
  }

  @Test
  void aUserThatDoesNotOwnTheTablesLoadsTheCatalogWithoutTheIndexes() throws Exception {
    sql("CREATE SCHEMA " + schema);
    Map<String, String> io = Map.of("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO");
    ((Closeable) Catalogs.load("indexes", Catalogs.jdbc(SERVER + "&currentSchema=" + schema,
        "memory://w/" + schema, io))).close(); // tables and indexes owned by postgres
    sql("DROP INDEX " + schema + "." + JdbcCatalogIndexes.TABLES_INDEX);
    sql("CREATE ROLE " + role + " LOGIN");
    sql("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
    sql("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO " + role);
    Map<String, String> properties = new HashMap<>(Catalogs.jdbc(
        DATABASE + "?currentSchema=" + schema, "memory://w/" + schema, io));
    properties.put("jdbc.user", role);

    Catalog catalog = Catalogs.load("indexes", properties); // may not create an index: warned
    try {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("ns"));
    } finally {
      ((Closeable) catalog).close();
    }

    assertThat(query("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema + "'"))
        .contains(JdbcCatalogIndexes.PROPERTIES_INDEX)
        .doesNotContain(JdbcCatalogIndexes.TABLES_INDEX);
    assertThat(query("SELECT namespace FROM " + schema + ".iceberg_namespace_properties"))
        .contains("ns");
  }

  @Test
  void replacesTheEarlierPrefixIndexWithOneThatEndsWithTheTableName() throws Exception {
    sql("CREATE SCHEMA " + schema);
    String uri = SERVER + "&currentSchema=" + schema;
    Catalog catalog = Catalogs.load("indexes", Catalogs.jdbc(uri, "memory://w/" + schema,
        Map.of("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO")));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("ns"));
    ((Closeable) catalog).close();
    sql("CREATE INDEX verglas_iceberg_tables_namespace_prefix ON " + schema
        + ".iceberg_tables (catalog_name, table_namespace text_pattern_ops)");

    JdbcCatalogSetup.ensure(Map.of("uri", uri));
    JdbcCatalogSetup.ensure(Map.of("uri", uri)); // idempotent

    assertThat(query("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema + "'"))
        .contains(JdbcCatalogIndexes.TABLES_INDEX, JdbcCatalogIndexes.PROPERTIES_INDEX)
        .doesNotContain(JdbcCatalogIndexes.EARLIER_INDEX);
    assertThat(String.join("\n", query("EXPLAIN SELECT * FROM " + schema + ".iceberg_tables"
        + " WHERE catalog_name = 'indexes' AND table_namespace = 'ns' AND table_name = 't'")))
        .containsPattern("Index Cond: .*table_name");
  }
}
