package io.verglas.workers.schedule;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Instants to and from {@code timestamptz} columns (UTC offsets on the wire). */
final class SqlTime {
  private SqlTime() {}

  static OffsetDateTime ts(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }

  static Instant instantOrNull(ResultSet rs, int column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
