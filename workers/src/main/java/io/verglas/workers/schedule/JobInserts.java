package io.verglas.workers.schedule;

import static io.verglas.workers.schedule.SqlTime.ts;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The two statements that add jobs: ready ones, many per statement ({@code unnest} of one array
 * per column), and one already leased to a local consumer. Both skip identities that exist and
 * notify the queue's channel in the same statement when they added a row.
 */
final class JobInserts {
  private JobInserts() {}

  /** Inserts the new identities among {@code jobs} as ready; returns how many were added. */
  static int insertReady(Connection c, String channel, List<NewJob> jobs, List<String> events,
      Instant now, int defaultMaxAttempts) throws SQLException {
    String sql = "with ins as (insert into verglas_jobs (identity, deployment, trigger_key,"
        + " interval_start, event, state, run_at, max_attempts, enqueued_at)"
        + " select i, d, t, s, e, 'ready', r, m, ? from unnest(?::text[], ?::text[], ?::text[],"
        + " ?::timestamptz[], ?::text[], ?::timestamptz[], ?::int[]) as u(i, d, t, s, e, r, m)"
        + " on conflict (identity) do nothing returning id),"
        + " woken as (select pg_notify(?, '') from ins limit 1)"
        + " select (select count(*) from ins), (select count(*) from woken)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, ts(now));
      bindColumns(c, ps, jobs, events, now, defaultMaxAttempts);
      ps.setString(9, channel);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Binds parameters 2..8: one array per column, one element per job. */
  private static void bindColumns(Connection c, PreparedStatement ps, List<NewJob> jobs,
      List<String> events, Instant now, int defaultMaxAttempts) throws SQLException {
    int n = jobs.size();
    Object[][] columns = new Object[7][n];
    for (int k = 0; k < n; k++) {
      NewJob job = jobs.get(k);
      columns[0][k] = job.identity();
      columns[1][k] = job.deployment();
      columns[2][k] = job.triggerKey().orElse(null);
      columns[3][k] = job.intervalStart().map(Instant::toString).orElse(null);
      columns[4][k] = events.get(k);
      columns[5][k] = job.runAt().orElse(now).toString();
      columns[6][k] = job.maxAttempts() > 0 ? job.maxAttempts() : defaultMaxAttempts;
    }
    for (int col = 0; col < 6; col++) {
      ps.setArray(col + 2, c.createArrayOf("text", columns[col]));
    }
    ps.setArray(8, c.createArrayOf("int4", columns[6]));
  }

  /**
   * Inserts {@code job} leased to {@code owner} (generation 1). With {@code unlessLimited}, only
   * if its deployment has no concurrency limit: empty when it has one (nothing inserted; the
   * caller takes the deployment's lock and asks again without).
   */
  static Optional<Submission> insertLeased(Connection c, String channel, NewJob job, String event,
      Instant now, Instant until, int maxAttempts, String owner, boolean unlessLimited)
      throws SQLException {
    String sql = "with lim as (select 1 from verglas_deployment_limits where deployment = ?"
        + " and ?), ins as (insert into verglas_jobs (identity, deployment, trigger_key,"
        + " interval_start, event, state, run_at, attempts, generation, lease_owner,"
        + " max_attempts, enqueued_at) select ?, ?, ?, ?::timestamptz, ?, 'leased',"
        + " ?::timestamptz, 1, 1, ?, ?, ?::timestamptz where not exists (select 1 from lim)"
        + " on conflict (identity) do nothing returning id),"
        + " woken as (select pg_notify(?, '') from ins limit 1)"
        + " select (select id from ins), (select count(*) from woken), (select count(*) from lim)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, job.deployment());
      ps.setBoolean(2, unlessLimited);
      ps.setString(3, job.identity());
      ps.setString(4, job.deployment());
      ps.setString(5, job.triggerKey().orElse(null));
      ps.setObject(6, job.intervalStart().map(SqlTime::ts).orElse(null));
      ps.setString(7, event);
      ps.setObject(8, ts(until));
      ps.setString(9, owner);
      ps.setInt(10, maxAttempts);
      ps.setObject(11, ts(now));
      ps.setString(12, channel);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getLong(3) > 0) {
          return Optional.empty();
        }
        long id = rs.getLong(1);
        return Optional.of(rs.wasNull() ? Submission.EXISTS : Submission.leased(new Lease(id,
            job.identity(), job.deployment(), job.event(), 1, maxAttempts, 1, until)));
      }
    }
  }
}
