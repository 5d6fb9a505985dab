package io.verglas.workers.schedule;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a connection that LISTENs on the queue's channel and turns every notification into a
 * {@link Wakeup} signal.
 *
 * <p>Design. The thread blocks in {@code PGConnection.getNotifications(timeout)}; the timeout
 * only bounds how long a dead connection can go unnoticed (the driver reads the socket, so a
 * notification ends the wait at once). On a connection failure it reconnects after a pause and
 * signals once, because notifications sent while it was not listening are lost: the dispatcher
 * then reads the queue again instead of trusting a wake-up that never came.
 */
final class NotificationListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NotificationListener.class);
  private static final int LIVENESS_MILLIS = 10_000;
  private static final long RECONNECT_MILLIS = 1_000;
  private final Database database;
  private final Wakeup wakeup;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Connection connection;

  NotificationListener(Database database, Wakeup wakeup) throws SQLException {
    this.database = database;
    this.wakeup = wakeup;
    this.connection = listen();
    this.thread = new Thread(this::loop, "verglas-scheduler-listen-" + database.schema());
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private Connection listen() throws SQLException {
    Connection c = database.open();
    try (Statement st = c.createStatement()) {
      st.execute("listen " + database.channel());
    }
    return c;
  }

  private void loop() {
    while (running) {
      try {
        PGNotification[] got = connection.unwrap(PGConnection.class)
            .getNotifications(LIVENESS_MILLIS);
        if (got != null && got.length > 0) {
          wakeup.signal();
        }
      } catch (SQLException e) {
        if (running) {
          reconnect(e);
        }
      }
    }
  }

  private void reconnect(SQLException cause) {
    LOG.warn("Scheduler lost its notification connection ({}); reconnecting", cause.getMessage());
    closeQuietly(connection);
    while (running) {
      try {
        Thread.sleep(RECONNECT_MILLIS);
        connection = listen();
        wakeup.signal();
        return;
      } catch (SQLException e) {
        LOG.warn("Cannot listen for scheduler notifications: {}", e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    running = false;
    closeQuietly(connection);
    thread.interrupt();
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (SQLException e) {
      // the connection is being discarded
    }
  }
}
