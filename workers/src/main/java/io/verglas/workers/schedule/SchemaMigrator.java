package io.verglas.workers.schedule;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Applies the scheduler's versioned SQL scripts ({@code V<n>__<name>.sql} beside this class) to
 * one schema, each once, in order, each in its own transaction, recorded in
 * {@code verglas_schema_history}.
 *
 * <p>Design. A plain runner rather than Flyway: the schema is a handful of scripts owned by
 * this module, PostgreSQL runs DDL inside transactions (a failed script leaves nothing behind),
 * and a transaction-scoped advisory lock serialises schedulers that start together. Flyway
 * would add two jars and its own configuration surface for the same guarantees; its history
 * table format is not needed by anyone else. Scripts are never edited once released: a change
 * is a new version.
 */
final class SchemaMigrator {
  /** The scripts in order; the number in a name is its version. */
  static final List<String> SCRIPTS = List.of("V1__jobs.sql", "V2__feed_positions.sql",
      "V3__deployment_limits.sql");
  private static final long LOCK_KEY = 0x766572676c6173L; // "verglas"

  private SchemaMigrator() {}

  /** Creates the schema if needed and applies the scripts it lacks; returns how many ran. */
  static int migrate(Connection connection, String schema) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      st.execute("select pg_advisory_xact_lock(" + LOCK_KEY + ")");
      st.execute("create schema if not exists " + schema);
      st.execute("create table if not exists " + schema + ".verglas_schema_history ("
          + "version integer primary key, script text not null, applied_at timestamptz not null)");
      int applied = 0;
      int current = currentVersion(connection, schema);
      for (String script : SCRIPTS) {
        int version = versionOf(script);
        if (version > current) {
          st.execute("set local search_path to " + schema);
          st.execute(read(script));
          record(connection, schema, version, script);
          applied++;
        }
      }
      connection.commit();
      return applied;
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  private static int currentVersion(Connection c, String schema) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(
            "select coalesce(max(version), 0) from " + schema + ".verglas_schema_history")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static void record(Connection c, String schema, int version, String script)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("insert into " + schema
        + ".verglas_schema_history (version, script, applied_at) values (?, ?, now())")) {
      ps.setInt(1, version);
      ps.setString(2, script);
      ps.executeUpdate();
    }
  }

  static int versionOf(String script) {
    if (!script.matches("V[0-9]+__[a-z0-9_]+\\.sql")) {
      throw new IllegalArgumentException("Cannot read schema script name: " + script);
    }
    return Integer.parseInt(script.substring(1, script.indexOf("__")));
  }

  private static String read(String script) {
    try (InputStream in = SchemaMigrator.class.getResourceAsStream(script)) {
      if (in == null) {
        throw new IllegalStateException("Cannot find schema script: " + script);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read schema script: " + script, e);
    }
  }
}
