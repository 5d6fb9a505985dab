package io.verglas.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A JDBC catalog's database reached as Iceberg's {@code JdbcCatalog} reaches it, on the machine's
 * PostgreSQL ({@link TestingPostgres}): as the catalog's {@code jdbc.user} (with its password),
 * with every other {@code jdbc.} property as a driver property.
 */
class JdbcCatalogDatabaseTest {
  @Test
  void connectsAsTheCatalogsUserWithItsDriverProperties() throws Exception {
    try (TestingCatalogRole role = TestingCatalogRole.create()) {
      Map<String, String> properties = new HashMap<>(role.catalogProperties());
      properties.put("jdbc.ApplicationName", "catalog-database-test");
      assertThat(session(properties))
          .containsExactly(role.name(), role.schema(), "catalog-database-test");
    }
  }

  @Test
  void propertiesWithoutAUriAreRefused() {
    assertThatThrownBy(() -> JdbcCatalogDatabase.of(Map.of("type", "jdbc", "jdbc.user", "someone")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot connect to a JDBC catalog's database: its properties have no uri");
  }

  @Test
  void messagesNameTheUriWithoutItsQuery() {
    assertThat(JdbcCatalogDatabase.of(Map.of("uri", TestingPostgres.DATABASE + "?password=p"))
        .redactedUri()).isEqualTo(TestingPostgres.DATABASE + "?…");
  }

  /** The connection's user, schema and application name. */
  private static List<String> session(Map<String, String> properties) throws Exception {
    try (Connection connection = JdbcCatalogDatabase.of(properties).connect();
        Statement statement = connection.createStatement();
        ResultSet session = statement.executeQuery(
            "SELECT current_user, current_schema(), current_setting('application_name')")) {
      assertThat(session.next()).isTrue();
      return List.of(session.getString(1), session.getString(2), session.getString(3));
    }
  }
}
