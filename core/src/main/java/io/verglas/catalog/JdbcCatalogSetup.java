package io.verglas.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * Brings a PostgreSQL database that holds Iceberg's JDBC catalog to what our processes need,
 * before Iceberg's catalog starts: the catalog's tables in the connection's own schema
 * ({@link JdbcCatalogTables}), then the prefix indexes on them ({@link JdbcCatalogIndexes}).
 *
 * <p>One connection, as the catalog's own user ({@link JdbcCatalogDatabase}: {@code jdbc.user},
 * {@code jdbc.password} and the other driver properties Iceberg passes), so it reaches the same
 * database and schema as the catalog.
 * Each {@link Step} first asks whether the database is there already ({@code to_regclass}, which
 * resolves through the connection's {@code search_path}), so a process's start on a prepared
 * database runs no DDL and takes no table lock. {@code jdbc.init-catalog-tables=false}, Iceberg's
 * own switch for "someone else creates the catalog's tables", turns off both steps: a database
 * prepared elsewhere gets no DDL from us either. The indexes are optional: a user that may
 * not create them (another role owns the tables) gets a warning, not a failed start.
 * Idempotent, and safe when several processes start at once.
 */
final class JdbcCatalogSetup {
  /** PostgreSQL's SQLSTATE when two sessions create the same relation at once. */
  private static final String UNIQUE_VIOLATION = "23505";
  /** PostgreSQL's SQLSTATE when the user may not run a statement (not the table's owner). */
  private static final String INSUFFICIENT_PRIVILEGE = "42501";
  private static final System.Logger LOG = System.getLogger(JdbcCatalogSetup.class.getName());
  private static final List<Step> STEPS = List.of(JdbcCatalogTables.STEP, JdbcCatalogIndexes.STEP);

  /**
   * Statements that bring the database to a state, run when a relation of {@code present} is
   * missing or one of {@code absent} exists. An {@code optional} step that the catalog's user
   * may not run (it does not own the tables) is skipped with a warning.
   */
  record Step(String what, List<String> present, List<String> absent, List<String> statements,
      boolean optional) {}

  private JdbcCatalogSetup() {}

  /**
   * Runs the steps the database lacks when {@code properties} describe a JDBC catalog on
   * PostgreSQL whose initialization is not turned off; does nothing otherwise.
   */
  static void ensure(Map<String, String> properties) {
    String uri = properties.get("uri");
    if (uri == null || !uri.startsWith("jdbc:postgresql:")
        || "false".equalsIgnoreCase(properties.get("jdbc.init-catalog-tables"))) {
      return;
    }
    JdbcCatalogDatabase database = JdbcCatalogDatabase.of(properties);
    try (Connection connection = database.connect()) {
      for (Step step : STEPS) {
        ensure(connection, step, database);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot connect to the catalog's database "
          + database.redactedUri() + ": " + e.getMessage(), e);
    }
  }

  private static void ensure(Connection connection, Step step, JdbcCatalogDatabase database) {
    try (Statement statement = connection.createStatement()) {
      if (needed(statement, step)) {
        run(statement, step);
      }
    } catch (SQLException e) {
      String message = "Cannot create the catalog's " + step.what() + " in "
          + database.redactedUri() + ": " + e.getMessage();
      if (step.optional() && INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        LOG.log(System.Logger.Level.WARNING, message + " (the catalog works without them)");
        return;
      }
      throw new IllegalStateException(message, e);
    }
  }

  private static boolean needed(Statement statement, Step step) throws SQLException {
    for (String relation : step.present()) {
      if (!exists(statement, relation)) {
        return true;
      }
    }
    for (String relation : step.absent()) {
      if (exists(statement, relation)) {
        return true;
      }
    }
    return false;
  }

  private static boolean exists(Statement statement, String relation) throws SQLException {
    try (ResultSet found = statement.executeQuery("SELECT to_regclass('" + relation + "')")) {
      return found.next() && found.getString(1) != null;
    }
  }

  private static void run(Statement statement, Step step) throws SQLException {
    for (String sql : step.statements()) {
      try {
        statement.execute(sql);
      } catch (SQLException e) {
        // IF NOT EXISTS does not cover a concurrent creation of the same relation
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw e;
        }
      }
    }
  }
}
