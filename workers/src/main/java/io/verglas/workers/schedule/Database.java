package io.verglas.workers.schedule;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Where the queue lives: a PostgreSQL JDBC URL, credentials and the schema holding the queue's
 * tables. Opens connections with the schema on their search path. The notification channel is
 * named after the schema, so schedulers on different schemas of one database do not wake each
 * other.
 */
public final class Database {
  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,47}");
  private final String url;
  private final String user;
  private final String password;
  private final String schema;

  private Database(String url, String user, String password, String schema) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.schema = schema;
  }

  /**
   * A database at {@code url} (jdbc:postgresql://...), with {@code user} and {@code password}
   * (either may be null for trust authentication), using {@code schema}.
   */
  public static Database of(String url, String user, String password, String schema) {
    Objects.requireNonNull(url, "url");
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("Cannot use scheduler database " + url
          + ": only jdbc:postgresql: URLs are supported");
    }
    if (schema == null || !SCHEMA.matcher(schema).matches()) {
      throw new IllegalArgumentException("Cannot use scheduler schema " + schema
          + ": expected a lower-case identifier of at most 48 characters");
    }
    return new Database(url, user, password, schema);
  }

  public String url() { return url; }
  public String schema() { return schema; }

  /** The LISTEN/NOTIFY channel of this schema's queue. */
  String channel() {
    return "verglas_jobs_" + schema;
  }

  /** A new connection (auto-commit) whose search path is the queue's schema. */
  public Connection open() throws SQLException {
    Properties props = new Properties();
    if (user != null) {
      props.setProperty("user", user);
    }
    if (password != null) {
      props.setProperty("password", password);
    }
    props.setProperty("ApplicationName", "verglas-scheduler-" + schema);
    Connection c = DriverManager.getConnection(url, props);
    try (Statement st = c.createStatement()) {
      st.execute("set search_path to " + schema);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** Creates the schema and applies the scheduler's versioned scripts it lacks. */
  public int migrate() throws SQLException {
    try (Connection c = open()) {
      return SchemaMigrator.migrate(c, schema);
    }
  }

  /** Drops the schema and everything in it (tests and benchmarks clean up with this). */
  public void dropSchema() throws SQLException {
    try (Connection c = open(); Statement st = c.createStatement()) {
      st.execute("drop schema if exists " + schema + " cascade");
    }
  }

  @Override
  public String toString() {
    return url + " schema " + schema;
  }
}
