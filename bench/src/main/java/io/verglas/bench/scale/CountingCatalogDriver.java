package io.verglas.bench.scale;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Set;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the catalog's queries by the table they name. Installed in place of the PostgreSQL
 * driver of this JVM ({@link #install}), it serves every {@code jdbc:postgresql:} connection
 * that any component opens through {@link DriverManager} (Iceberg's JDBC catalog in ingest,
 * the jobs and the cache node's {@code /catalog}, the cache node's metadata-location poller),
 * through the real driver, and sees each statement executed: a prepared statement names a
 * table when one of its string parameters is a table's name (Iceberg binds names as
 * parameters), a plain one when its SQL text holds a table's name. pg_stat_statements is not
 * enabled on this server, and would not show the parameters.
 *
 * <p>{@link #close()} puts the real driver back.
 */
final class CountingCatalogDriver implements Driver, AutoCloseable {
  private static final String PREFIX = "jdbc:postgresql:";
  private static final Set<String> EXECUTES = Set.of("execute", "executeQuery", "executeUpdate",
      "executeLargeUpdate", "executeBatch", "executeLargeBatch");
  private static final Pattern NAME = Pattern.compile("\\bt\\d{7}\\b");
  private final Driver delegate;
  private final ScaleCounts counts;

  private CountingCatalogDriver(Driver delegate, ScaleCounts counts) {
    this.delegate = delegate;
    this.counts = counts;
  }

  /** Replaces the registered PostgreSQL driver with one counting into {@code counts}. */
  static CountingCatalogDriver install(ScaleCounts counts) throws SQLException {
    Driver postgres = DriverManager.getDriver(PREFIX + "//127.0.0.1/x");
    CountingCatalogDriver driver = new CountingCatalogDriver(postgres, counts);
    DriverManager.deregisterDriver(postgres);
    DriverManager.registerDriver(driver);
    return driver;
  }

  @Override
  public void close() throws SQLException {
    DriverManager.deregisterDriver(this);
    DriverManager.registerDriver(delegate);
  }

  @Override
  public Connection connect(String url, Properties info) throws SQLException {
    Connection connection = delegate.connect(url, info);
    return connection == null ? null : proxy(Connection.class, connection, this::onConnection);
  }

  private Object onConnection(Object target, Method method, Object[] args) throws Throwable {
    Object result = invoke(target, method, args);
    if (result instanceof PreparedStatement statement) {
      return proxy(PreparedStatement.class, statement, new Prepared()::invoke);
    }
    if (result instanceof Statement statement) {
      return proxy(Statement.class, statement, this::onStatement);
    }
    return result;
  }

  private Object onStatement(Object target, Method method, Object[] args) throws Throwable {
    if (EXECUTES.contains(method.getName()) && args != null && args[0] instanceof String sql) {
      counts.count(named(sql));
    }
    return invoke(target, method, args);
  }

  /** The kind of the first table the SQL text names. */
  private ScaleTables.Kind named(String sql) {
    Matcher names = NAME.matcher(sql);
    while (names.find()) {
      ScaleTables.Kind kind = counts.tables().classify(names.group());
      if (kind != ScaleTables.Kind.NONE) {
        return kind;
      }
    }
    return ScaleTables.Kind.NONE;
  }

  /** One prepared statement: the table its bound parameters name since they were last cleared. */
  private final class Prepared {
    private ScaleTables.Kind kind = ScaleTables.Kind.NONE;

    Object invoke(Object target, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (name.equals("setString") && args[1] instanceof String value
          && kind == ScaleTables.Kind.NONE) {
        kind = counts.tables().classify(value);
      } else if (name.equals("clearParameters")) {
        kind = ScaleTables.Kind.NONE;
      } else if (EXECUTES.contains(name)) {
        counts.count(args != null && args.length > 0 && args[0] instanceof String sql
            ? named(sql) : kind);
      }
      return CountingCatalogDriver.invoke(target, method, args);
    }
  }

  private interface Handler {
    Object invoke(Object target, Method method, Object[] args) throws Throwable;
  }

  private static <T> T proxy(Class<T> type, T target, Handler handler) {
    InvocationHandler invocation = (p, method, args) -> handler.invoke(target, method, args);
    return type.cast(Proxy.newProxyInstance(CountingCatalogDriver.class.getClassLoader(),
        new Class<?>[] {type}, invocation));
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public boolean acceptsURL(String url) throws SQLException {
    return url != null && url.startsWith(PREFIX);
  }

  @Override
  public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
    return delegate.getPropertyInfo(url, info);
  }

  @Override
  public int getMajorVersion() {
    return delegate.getMajorVersion();
  }

  @Override
  public int getMinorVersion() {
    return delegate.getMinorVersion();
  }

  @Override
  public boolean jdbcCompliant() {
    return delegate.jdbcCompliant();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }
}
