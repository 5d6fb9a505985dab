package io.verglas.workers.subscribe;

import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.SchedulerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * Where each change feed subscriber resumes, in the scheduler's schema
 * ({@code verglas_feed_positions}, {@code V2__feed_positions.sql}). One statement per call, on
 * a connection opened for it: positions are written at most once per matched event or idle
 * heartbeat, so a pooled connection would buy nothing.
 */
public final class FeedPositions {
  private final Database database;

  public FeedPositions(Database database) {
    this.database = database;
  }

  /** The position {@code subscriber} resumes from, if it stored one. */
  public Optional<Long> load(String subscriber) {
    try (Connection c = database.open(); PreparedStatement ps = c.prepareStatement(
        "select next_position from verglas_feed_positions where subscriber = ?")) {
      ps.setString(1, subscriber);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new SchedulerException("Cannot load the feed position of " + subscriber + ": "
          + e.getMessage(), e);
    }
  }

  /** Stores {@code next} as where {@code subscriber} resumes; a position never moves back. */
  public void save(String subscriber, long next, Instant now) {
    try (Connection c = database.open(); PreparedStatement ps = c.prepareStatement(
        "insert into verglas_feed_positions (subscriber, next_position, updated_at)"
            + " values (?, ?, ?) on conflict (subscriber) do update set"
            + " next_position = greatest(verglas_feed_positions.next_position, excluded.next_position),"
            + " updated_at = excluded.updated_at")) {
      ps.setString(1, subscriber);
      ps.setLong(2, next);
      ps.setObject(3, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new SchedulerException("Cannot save the feed position of " + subscriber + ": "
          + e.getMessage(), e);
    }
  }
}
