package io.verglas.workers.schedule;

import static io.verglas.workers.schedule.SqlTime.ts;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Per-deployment concurrency limits ({@code verglas_deployment_limits}, {@code V3}): the
 * statements that store them and that lease the jobs of a limited deployment.
 *
 * <p>Race-freedom. Every lease of a limited deployment's job is taken by a transaction that
 * first holds that deployment's transaction-scoped advisory lock, and counts the deployment's
 * live leases (state {@code leased}, lease not expired) in a later statement, whose snapshot
 * therefore includes every lease committed by the lock's previous holders. So however many
 * consumers share the database, a deployment never has more live leases than its limit. Claims
 * take the lock with {@code pg_try_advisory_xact_lock} (a consumer finding it held skips the
 * deployment, as {@code SKIP LOCKED} skips a locked row); a local submit waits for it (a claim
 * holds it for one statement and a commit). A hash collision of two deployments' keys only
 * serialises their claims. An expired lease does not count: its holder is presumed dead, the
 * job claimable again (the fencing of {@link JobQueue} applies).
 */
final class ConcurrencyLimits {
  /** A limited deployment's live leases, counted at {@code ?} (now). */
  private static final String LIVE = "(select count(*) from verglas_jobs r where r.deployment ="
      + " l.deployment and r.state = 'leased' and r.run_at > ?)";
  /** Deployments at their limit, their live leases counted at {@code ?} (now). */
  static final String CAPPED = "select l.deployment from verglas_deployment_limits l where"
      + " l.max_concurrency <= " + LIVE;
  /**
   * Limited deployments with a due job and (on the statement's snapshot) room for it, each
   * locked for the transaction unless another holds it; parameters: now, now, lock namespace.
   * Driven from the limits (one index probe each, none when there are none: never a scan of
   * the due jobs); the {@code offset 0} keeps the lock call after the filter.
   */
  static final String LOCK_WAITING = "select deployment from (select l.deployment from"
      + " verglas_deployment_limits l cross join lateral (select 1 from verglas_jobs w where"
      + " w.deployment = l.deployment and w.state in ('ready', 'leased') and w.run_at <= ?"
      + " and w.attempts < w.max_attempts limit 1) due where l.max_concurrency > " + LIVE
      + " offset 0) t where pg_try_advisory_xact_lock(hashtext(?), hashtext(t.deployment))";
  /** Leaves out the jobs of limited deployments (an array computed once per statement). */
  static final String UNLIMITED = "j.deployment <> all(array(select deployment from"
      + " verglas_deployment_limits))";

  private ConcurrencyLimits() {}

  /**
   * Leases up to {@code limit} due jobs of {@code deployments} (whose locks the transaction
   * holds), each deployment at most up to its free slots, oldest due first.
   */
  static PreparedStatement claim(Connection c, List<String> deployments, Instant now,
      Instant until, int limit, String owner, String returning) throws SQLException {
    String sql = "with cap as (select l.deployment, l.max_concurrency - " + LIVE + " as free"
        + " from verglas_deployment_limits l where l.deployment = any(?)),"
        + " due as (select c.id from cap cross join lateral (select j.id, j.run_at from"
        + " verglas_jobs j where j.deployment = cap.deployment and j.state in ('ready', 'leased')"
        + " and j.run_at <= ? and j.attempts < j.max_attempts order by j.run_at, j.id"
        + " limit greatest(cap.free, 0) for update skip locked) c order by c.run_at, c.id limit ?)"
        + " update verglas_jobs j set state = 'leased', generation = j.generation + 1,"
        + " attempts = j.attempts + 1, lease_owner = ?, run_at = ? from due where j.id = due.id"
        + returning;
    PreparedStatement ps = c.prepareStatement(sql);
    ps.setObject(1, ts(now));
    ps.setArray(2, c.createArrayOf("text", deployments.toArray()));
    ps.setObject(3, ts(now));
    ps.setInt(4, limit);
    ps.setString(5, owner);
    ps.setObject(6, ts(until));
    return ps;
  }

  /** Waits for the transaction-scoped lock of {@code deployment}'s leases. */
  static void lock(Connection c, String namespace, String deployment) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "select pg_advisory_xact_lock(hashtext(?), hashtext(?))")) {
      ps.setString(1, namespace);
      ps.setString(2, deployment);
      ps.executeQuery().close();
    }
  }

  /**
   * Whether {@code deployment} has room for one more live lease at {@code now} (no limit: room);
   * call holding its lock.
   */
  static boolean hasRoom(Connection c, String deployment, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("select coalesce((select l.max_concurrency > "
        + LIVE + " from verglas_deployment_limits l where l.deployment = ?), true)")) {
      ps.setObject(1, ts(now));
      ps.setString(2, deployment);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /** Sets the limits of {@code limits}' deployments (name to max concurrency) in one statement. */
  static void set(Connection c, Map<String, Integer> limits, Instant now) throws SQLException {
    List<String> names = new ArrayList<>(limits.keySet());
    Integer[] values = names.stream().map(limits::get).toArray(Integer[]::new);
    try (PreparedStatement ps = c.prepareStatement("insert into verglas_deployment_limits"
        + " (deployment, max_concurrency, updated_at) select d, m, ? from unnest(?::text[],"
        + " ?::int[]) as u(d, m) on conflict (deployment) do update set max_concurrency ="
        + " excluded.max_concurrency, updated_at = excluded.updated_at"
        + " where verglas_deployment_limits.max_concurrency <> excluded.max_concurrency")) {
      ps.setObject(1, ts(now));
      ps.setArray(2, c.createArrayOf("text", names.toArray()));
      ps.setArray(3, c.createArrayOf("int4", values));
      ps.executeUpdate();
    }
  }

  /** Removes the limits of {@code deployments}; returns how many there were. */
  static int remove(Connection c, Collection<String> deployments) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "delete from verglas_deployment_limits where deployment = any(?)")) {
      ps.setArray(1, c.createArrayOf("text", deployments.toArray()));
      return ps.executeUpdate();
    }
  }

  /** The limit of {@code deployment}, if it has one. */
  static Optional<Integer> get(Connection c, String deployment) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "select max_concurrency from verglas_deployment_limits where deployment = ?")) {
      ps.setString(1, deployment);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getInt(1)) : Optional.empty();
      }
    }
  }
}
