package io.verglas.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Creates the tables of Iceberg's JDBC catalog (schema version 1) in a PostgreSQL connection's
 * current schema when they are missing there, before Iceberg's catalog starts.
 *
 * <p>Why: Iceberg's {@code JdbcCatalog} looks for its tables with
 * {@code DatabaseMetaData.getTables(null, null, "iceberg_tables", …)}, which matches them in any
 * schema of the database (apache/iceberg#11862). A catalog given a schema of its own
 * ({@code currentSchema=…}) in a database where another schema already holds a catalog
 * therefore never creates its tables, and its first statement fails with "relation
 * iceberg_tables does not exist". PostgreSQL resolves an unqualified name through the
 * connection's {@code search_path}, which {@code currentSchema} sets, so the check and the
 * creation here see exactly the schema the catalog will use. The definitions are those of
 * Iceberg's version 1 catalog (with {@code iceberg_type}), the version {@link Catalogs#jdbc}
 * asks for. Idempotent, and safe when several processes start at once.
 */
public final class JdbcCatalogTables {
  static final List<String> TABLES = List.of("iceberg_tables", "iceberg_namespace_properties");
  private static final List<String> POSTGRESQL = List.of(
      "CREATE TABLE IF NOT EXISTS iceberg_tables ("
          + "catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,"
          + " table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),"
          + " previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5),"
          + " PRIMARY KEY (catalog_name, table_namespace, table_name))",
      "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
          + "catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,"
          + " property_key VARCHAR(255), property_value VARCHAR(1000),"
          + " PRIMARY KEY (catalog_name, namespace, property_key))");
  /** PostgreSQL's SQLSTATE when two sessions create the same table at once. */
  private static final String UNIQUE_VIOLATION = "23505";

  private JdbcCatalogTables() {}

  /**
   * Creates the missing catalog tables when {@code properties} describe a JDBC catalog on
   * PostgreSQL whose initialization is not turned off; does nothing otherwise.
   */
  public static void ensure(Map<String, String> properties) {
    String uri = properties.get("uri");
    if (uri == null || !uri.startsWith("jdbc:postgresql:")
        || "false".equalsIgnoreCase(properties.get("jdbc.init-catalog-tables"))) {
      return;
    }
    try (Connection connection = DriverManager.getConnection(uri, credentials(properties))) {
      if (!missing(connection)) {
        return;
      }
      create(connection);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot create the catalog's tables in "
          + JdbcCatalogIndexes.redacted(uri) + ": " + e.getMessage(), e);
    }
  }

  private static boolean missing(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String table : TABLES) {
        try (ResultSet found = statement.executeQuery("SELECT to_regclass('" + table + "')")) {
          if (found.next() && found.getString(1) == null) {
            return true;
          }
        }
      }
      return false;
    }
  }

  private static void create(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : POSTGRESQL) {
        try {
          statement.execute(sql);
        } catch (SQLException e) {
          // IF NOT EXISTS does not cover a concurrent creation of the same table's type
          if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
            throw e;
          }
        }
      }
    }
  }

  /** The driver properties Iceberg would pass: {@code jdbc.user} and {@code jdbc.password}. */
  private static Properties credentials(Map<String, String> properties) {
    Properties credentials = new Properties();
    for (String key : List.of("user", "password")) {
      String value = properties.get("jdbc." + key);
      if (value != null) {
        credentials.setProperty(key, value);
      }
    }
    return credentials;
  }
}
