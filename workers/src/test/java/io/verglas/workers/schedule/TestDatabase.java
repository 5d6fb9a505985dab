package io.verglas.workers.schedule;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A schema of its own on the test PostgreSQL (127.0.0.1:5432, database {@code test}, trust
 * authentication; {@code -Dverglas.test.pg-url} overrides), migrated on creation and dropped on
 * close, so tests never see each other's jobs.
 */
public final class TestDatabase implements AutoCloseable {
  public static final String URL =
      System.getProperty("verglas.test.pg-url", "jdbc:postgresql://127.0.0.1:5432/test");
  private final Database database;

  private TestDatabase(Database database) {
    this.database = database;
  }

  public static TestDatabase create() throws SQLException {
    String schema = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    Database db = Database.of(URL, "postgres", null, schema);
    db.migrate();
    return new TestDatabase(db);
  }

  public Database database() {
    return database;
  }

  /** Runs a count query against the schema. */
  public long count(String where) throws SQLException {
    try (Connection c = database.open(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from verglas_jobs where " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() throws SQLException {
    database.dropSchema();
  }
}
