package io.verglas.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The machine's PostgreSQL for tests (127.0.0.1:5432, database {@code test}, trust
 * authentication; {@code -Dverglas.test.pg-url} overrides), and statements run on it as its
 * superuser.
 */
final class TestingPostgres {
  static final String DATABASE =
      System.getProperty("verglas.test.pg-url", "jdbc:postgresql://127.0.0.1:5432/test");
  static final String SERVER = DATABASE + "?user=postgres";

  private TestingPostgres() {}

  /** A name for a schema or role of one test: {@code vg_} and 12 random hex digits. */
  static String uniqueName() {
    return "vg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  static void sql(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(SERVER); Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  /** The first column of each row {@code sql} answers. */
  static List<String> query(String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(SERVER); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }
}
