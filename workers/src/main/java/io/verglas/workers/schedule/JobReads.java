package io.verglas.workers.schedule;

import static io.verglas.workers.schedule.SqlTime.instant;
import static io.verglas.workers.schedule.SqlTime.instantOrNull;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The queue's read-only statements: the next due time and job listings. */
final class JobReads {
  /** Rows that still have a due time: ready to run, or leased until their lease expires. */
  static final String DUE = "state in ('ready', 'leased')";

  private JobReads() {}

  /**
   * The earliest due time of any ready or leased job, leaving out the ready jobs of deployments
   * at their concurrency limit at {@code now}: those wait for a run of theirs to finish (which
   * notifies) or a lease of theirs to expire (a leased row's due time, included).
   */
  static Optional<Instant> nextDue(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "select min(run_at) from verglas_jobs j where " + DUE + " and (state = 'leased'"
            + " or j.deployment not in (" + ConcurrencyLimits.CAPPED + "))")) {
      ps.setObject(1, SqlTime.ts(now));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Optional.ofNullable(instantOrNull(rs, 1));
      }
    }
  }

  /** Jobs matching {@code where} (one string parameter, may end in order/limit clauses). */
  static List<JobStatus> select(Connection c, String where, String arg) throws SQLException {
    String sql = "select identity, state, attempts, generation, run_at, interval_start,"
        + " last_error from verglas_jobs where " + where;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      List<JobStatus> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new JobStatus(rs.getString(1), JobState.ofSql(rs.getString(2)), rs.getInt(3),
              rs.getLong(4), instant(rs, 5), Optional.ofNullable(instantOrNull(rs, 6)),
              Optional.ofNullable(rs.getString(7))));
        }
      }
      return out;
    }
  }
}
