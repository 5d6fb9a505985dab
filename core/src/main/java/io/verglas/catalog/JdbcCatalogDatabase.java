package io.verglas.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The database of an Iceberg JDBC catalog, reached as Iceberg's {@code JdbcCatalog} reaches it:
 * the catalog's {@code uri}, with each {@code jdbc.}-prefixed catalog property, prefix removed,
 * as a driver property ({@code jdbc.user}, {@code jdbc.password}, {@code jdbc.sslmode} …), which
 * is what Iceberg's {@code JdbcClientPool} passes. Our code that prepares or reads the catalog's
 * tables itself ({@link JdbcCatalogSetup}, {@link JdbcMetadataLocations}) connects through this
 * class only, so it logs in as the catalog does and reaches the same schema.
 */
final class JdbcCatalogDatabase {
  private final String uri;
  private final Map<String, String> driverProperties;

  private JdbcCatalogDatabase(String uri, Map<String, String> driverProperties) {
    this.uri = uri;
    this.driverProperties = driverProperties;
  }

  /** The database that the catalog of {@code catalogProperties} uses. */
  static JdbcCatalogDatabase of(Map<String, String> catalogProperties) {
    String uri = catalogProperties.get(CatalogProperties.URI);
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot connect to a JDBC catalog's database: its properties have no " + CatalogProperties.URI);
    }
    Map<String, String> driver = new LinkedHashMap<>();
    catalogProperties.forEach((key, value) -> {
      if (key.startsWith(JdbcCatalog.PROPERTY_PREFIX) && value != null) {
        driver.put(key.substring(JdbcCatalog.PROPERTY_PREFIX.length()), value);
      }
    });
    return new JdbcCatalogDatabase(uri, Map.copyOf(driver));
  }

  /** A new connection, as the catalog's user; the caller closes it. */
  Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.putAll(driverProperties);
    return DriverManager.getConnection(uri, properties);
  }

  /** The URI without its query (which may hold a password), for messages. */
  String redactedUri() {
    int query = uri.indexOf('?');
    return query < 0 ? uri : uri.substring(0, query) + "?…";
  }
}
