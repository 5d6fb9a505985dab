package io.verglas.catalog;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * A login role with a password on {@link TestingPostgres}, with a schema of its own that is its
 * {@code search_path}: a catalog whose URI names neither user nor schema reaches that schema only
 * when it logs in as the role ({@code jdbc.user}, {@code jdbc.password}). {@link #close} drops
 * the schema and the role.
 */
final class TestingCatalogRole implements AutoCloseable {
  static final String PASSWORD = "secret";
  private final String name;
  private final String schema;

  private TestingCatalogRole(String name, String schema) {
    this.name = name;
    this.schema = schema;
  }

  static TestingCatalogRole create() throws SQLException {
    String schema = TestingPostgres.uniqueName();
    TestingCatalogRole role = new TestingCatalogRole(schema + "_user", schema);
    try {
      TestingPostgres.sql("CREATE ROLE " + role.name + " LOGIN PASSWORD '" + PASSWORD + "'");
      TestingPostgres.sql("CREATE SCHEMA " + schema + " AUTHORIZATION " + role.name);
      TestingPostgres.sql("ALTER ROLE " + role.name + " SET search_path = " + schema);
    } catch (SQLException e) {
      role.close();
      throw e;
    }
    return role;
  }

  String name() {
    return name;
  }

  String schema() {
    return schema;
  }

  /**
   * A JDBC catalog on {@link TestingPostgres#DATABASE} (no user, no schema in the URI) that logs
   * in as this role, with its files in memory.
   */
  Map<String, String> catalogProperties() {
    Map<String, String> properties = new HashMap<>(Catalogs.jdbc(TestingPostgres.DATABASE,
        "memory://w/" + schema, Map.of("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO")));
    properties.put("jdbc.user", name);
    properties.put("jdbc.password", PASSWORD);
    return properties;
  }

  @Override
  public void close() throws SQLException {
    TestingPostgres.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    TestingPostgres.sql("DROP ROLE IF EXISTS " + name);
  }
}
