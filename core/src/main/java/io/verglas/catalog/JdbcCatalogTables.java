package io.verglas.catalog;

import java.util.List;

/**
 * The tables of Iceberg's JDBC catalog (schema version 1), created in a PostgreSQL connection's
 * current schema when they are missing there, before Iceberg's catalog starts
 * ({@link JdbcCatalogSetup} runs them).
 *
 * <p>Why: Iceberg's {@code JdbcCatalog} looks for its tables with
 * {@code DatabaseMetaData.getTables(null, null, "iceberg_tables", …)}, which matches them in any
 * schema of the database (apache/iceberg#11862). A catalog given a schema of its own
 * ({@code currentSchema=…}) in a database where another schema already holds a catalog
 * therefore never creates its tables, and its first statement fails with "relation
 * iceberg_tables does not exist". PostgreSQL resolves an unqualified name through the
 * connection's {@code search_path}, which {@code currentSchema} sets, so the check and the
 * creation see exactly the schema the catalog will use. The definitions are those of Iceberg's
 * version 1 catalog (with {@code iceberg_type}), the version {@link Catalogs#jdbc} asks for.
 */
final class JdbcCatalogTables {
  static final List<String> TABLES = List.of("iceberg_tables", "iceberg_namespace_properties");
  static final JdbcCatalogSetup.Step STEP = new JdbcCatalogSetup.Step("tables", TABLES, List.of(),
      List.of(
          "CREATE TABLE IF NOT EXISTS iceberg_tables ("
              + "catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),"
              + " previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5),"
              + " PRIMARY KEY (catalog_name, table_namespace, table_name))",
          "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
              + "catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,"
              + " property_key VARCHAR(255), property_value VARCHAR(1000),"
              + " PRIMARY KEY (catalog_name, namespace, property_key))"), false);

  private JdbcCatalogTables() {}
}
