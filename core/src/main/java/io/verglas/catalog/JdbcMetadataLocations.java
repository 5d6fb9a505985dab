package io.verglas.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * {@link MetadataLocations} of an Iceberg JDBC catalog, from its {@code iceberg_tables} table:
 * one query streams every table's row (namespace levels joined by dots, which a level cannot
 * hold in that catalog; name; metadata location) a batch at a time, so a poll of a million
 * tables is one query and no table load. Views (rows of another {@code iceberg_type}, in the
 * catalog's newer schema) are left out where the column exists. It connects as the catalog does
 * ({@link JdbcCatalogDatabase}: the catalog's {@code uri}, {@code jdbc.user}, {@code
 * jdbc.password} and other driver properties), so it reads the catalog's own tables.
 */
public final class JdbcMetadataLocations implements MetadataLocations {
  static final int FETCH_SIZE = 1_000;
  private static final String TABLES = "SELECT table_namespace, table_name, metadata_location"
      + " FROM iceberg_tables WHERE catalog_name = ?";

  private final String catalogName;
  private final JdbcCatalogDatabase database;

  /**
   * The tables of the catalog {@code catalogName} whose properties are {@code catalogProperties}
   * (those {@link Catalogs#load} takes).
   *
   * @throws IllegalArgumentException when the properties have no {@code uri}
   */
  public JdbcMetadataLocations(String catalogName, Map<String, String> catalogProperties) {
    this.catalogName = catalogName;
    this.database = JdbcCatalogDatabase.of(catalogProperties);
  }

  @Override
  public void forEach(BiConsumer<TableIdentifier, String> table) {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false); // PostgreSQL streams with a fetch size only in a transaction
      boolean typed = hasTypeColumn(connection);
      try (PreparedStatement query = connection.prepareStatement(typed
          ? TABLES + " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)" : TABLES)) {
        query.setFetchSize(FETCH_SIZE);
        query.setString(1, catalogName);
        try (ResultSet rows = query.executeQuery()) {
          while (rows.next()) {
            String location = rows.getString(3);
            if (location != null) {
              table.accept(TableIdentifier.of(Namespace.of(rows.getString(1).split("\\.")),
                  rows.getString(2)), location);
            }
          }
        }
      } finally {
        connection.rollback();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot list the metadata locations of catalog "
          + catalogName + " in " + database.redactedUri() + ": " + e.getMessage(), e);
    }
  }

  private static boolean hasTypeColumn(Connection connection) throws SQLException {
    try (ResultSet columns = connection.getMetaData().getColumns(null, null, "iceberg_tables", null)) {
      while (columns.next()) {
        if ("iceberg_type".equalsIgnoreCase(columns.getString("COLUMN_NAME"))) {
          return true;
        }
      }
    }
    return false;
  }
}
