package io.verglas.workers.schedule;

import static io.verglas.workers.schedule.SqlTime.instant;
import static io.verglas.workers.schedule.SqlTime.ts;

import io.cloudevents.CloudEvent;
import io.verglas.workers.event.CloudEventCodec;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The durable job queue on PostgreSQL: enqueue, claim, heartbeat, complete, fail.
 *
 * <p>Design. One row per job ({@code V1__jobs.sql}). Enqueue is {@code INSERT ... ON CONFLICT
 * (identity) DO NOTHING}, so the same trigger identity enqueued twice (a scheduler restart, two
 * schedulers, a retried webhook) yields one job; a new row sends {@code pg_notify} in the same
 * statement, delivered at commit. Claim picks due rows with {@code FOR UPDATE SKIP LOCKED}
 * (competing consumers never wait on each other) and, in the same statement, increments the
 * row's generation and attempts and sets {@code run_at} to the lease expiry: a lease is just a
 * due time, and an expired lease is claimable like a ready job.
 *
 * <p>Fencing. Complete, fail and heartbeat carry the generation the consumer claimed under and
 * update only {@code where generation = ? and state = 'leased'}: once another consumer claimed
 * the job after the lease expired, the stale consumer's writes change nothing and return false.
 * An expired lease on the last attempt is not claimed again; the next claim marks it dead.
 * A permanent failure ({@link #failPermanently}) marks the job dead at once, fenced the same way.
 *
 * <p>Clock. Every time written or compared comes from the injected clock, not the database's
 * {@code now()}, so tests advance time instead of sleeping; schedulers sharing a queue must
 * share a reasonably synchronised clock (NTP), as lease expiry compares their readings.
 *
 * <p>Failures. The queue holds one connection, used by one caller at a time; a failed statement
 * throws {@link SchedulerException} ("Cannot verb: reason") and a broken connection is reopened
 * by the next call. Every operation is one statement, so a failure leaves the
 * row as it was. Memory: the stored event is bounded by {@code maxEventBytes}.
 */
public final class JobQueue implements AutoCloseable {
  private static final String DUE = JobReads.DUE;
  private static final String RETURNING = " returning j.id, j.identity, j.deployment, j.event,"
      + " j.attempts, j.max_attempts, j.generation, j.run_at";
  private final Database database;
  private final QueueSettings settings;
  private final boolean outcomesOnly;
  private final boolean listening;
  private Connection connection;

  public JobQueue(Database database, QueueSettings settings) {
    this(database, settings, false, false);
  }

  private JobQueue(Database database, QueueSettings settings, boolean outcomesOnly,
      boolean listening) {
    this.database = Objects.requireNonNull(database, "database");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.outcomesOnly = outcomesOnly;
    this.listening = listening;
  }

  /**
   * A consumer's queue: its connection also LISTENs on the queue's channel, so the consumer
   * claims on the connection that woke it ({@link #awaitNotification}), one thread hop less
   * between an enqueue and its run.
   */
  static JobQueue forConsumer(Database database, QueueSettings settings) {
    return new JobQueue(database, settings, false, true);
  }

  /**
   * A queue for a consumer's outcomes only (complete, fail, heartbeat), committing without
   * waiting for the WAL flush ({@code synchronous_commit = off}). Losing such a commit in a
   * database crash only makes the job run again after its lease expires (runs are at least
   * once), and any later durable commit (a claim, an enqueue) flushes it first, so ordering
   * holds. Claims and enqueues stay durable: a lost claim could hand its generation out twice.
   */
  static JobQueue forOutcomes(Database database, QueueSettings settings) {
    return new JobQueue(database, settings, true, false);
  }

  public Database database() { return database; }
  public QueueSettings settings() { return settings; }
  public Instant now() { return settings.clock().instant(); }

  /** Enqueues {@code job} unless a job with its identity exists; true if this call added it. */
  public boolean enqueue(NewJob job) {
    return enqueueAll(List.of(job)) == 1;
  }

  /**
   * Enqueues each of {@code jobs} whose identity is new, in one statement (one round trip,
   * one WAL flush); returns how many were added. Listeners are notified once, at commit.
   */
  public synchronized int enqueueAll(List<NewJob> jobs) {
    if (jobs.isEmpty()) {
      return 0;
    }
    requireDurable(what("enqueue", jobs.size(), jobs.get(0).identity()));
    List<String> events = new ArrayList<>(jobs.size());
    for (NewJob job : jobs) {
      events.add(boundedEvent(job));
    }
    Instant now = now();
    return run(what("enqueue", jobs.size(), jobs.get(0).identity()),
        c -> JobInserts.insertReady(c, database.channel(), jobs, events, now,
            settings.maxAttempts()));
  }

  /**
   * Enqueues {@code job} already leased to {@code owner} (generation 1, attempt 1), for a
   * consumer in the enqueuing process to run at once. The row is durable before this returns,
   * and the lease fences like a claimed one: if the owner dies, the lease expires and another
   * consumer runs the job. Listeners are notified, so their timers include the new lease's
   * expiry. A job whose identity exists changes nothing; a job of a deployment at its
   * concurrency limit is enqueued ready instead, to be claimed when a run of it ends. One
   * statement for an unlimited deployment; a limited one's lease is taken holding its lock.
   */
  public synchronized Submission enqueueLeased(NewJob job, String owner) {
    requireDurable("enqueue job " + job.identity());
    String event = boundedEvent(job);
    Instant now = now();
    if (job.runAt().map(at -> at.isAfter(now)).orElse(false)) {
      throw new IllegalArgumentException("Cannot lease job " + job.identity() + " at enqueue:"
          + " it is not due before " + job.runAt().get());
    }
    Instant until = now.plus(settings.leaseDuration());
    int maxAttempts = job.maxAttempts() > 0 ? job.maxAttempts() : settings.maxAttempts();
    String what = "enqueue job " + job.identity();
    Optional<Submission> unlimited = run(what, c -> JobInserts.insertLeased(c,
        database.channel(), job, event, now, until, maxAttempts, owner, true));
    return unlimited.orElseGet(() -> run(what, c -> inTransaction(c, () -> {
      ConcurrencyLimits.lock(c, database.channel(), job.deployment());
      if (!ConcurrencyLimits.hasRoom(c, job.deployment(), now)) {
        int added = JobInserts.insertReady(c, database.channel(), List.of(job), List.of(event),
            now, maxAttempts);
        return added == 1 ? Submission.WAITING : Submission.EXISTS;
      }
      return JobInserts.insertLeased(c, database.channel(), job, event, now, until,
          maxAttempts, owner, false).orElseThrow();
    })));
  }

  /**
   * Limits the live leases of each deployment of {@code limits} (name to max concurrency, at
   * least 1) from the next claim on; other deployments keep theirs.
   */
  public synchronized void limitConcurrency(Map<String, Integer> limits) {
    limits.forEach((name, max) -> {
      if (max == null || max < 1) {
        throw new IllegalArgumentException("Cannot limit the concurrency of " + name + " to "
            + max + ": must be at least 1");
      }
    });
    if (!limits.isEmpty()) {
      requireDurable("limit the concurrency of " + limits.keySet());
      run("limit the concurrency of " + limits.keySet(),
          c -> { ConcurrencyLimits.set(c, limits, now()); return null; });
    }
  }

  /** Lifts the concurrency limits of {@code deployments}; returns how many had one. */
  public synchronized int unlimitConcurrency(Collection<String> deployments) {
    if (deployments.isEmpty()) {
      return 0;
    }
    requireDurable("lift the concurrency limits of " + deployments);
    return run("lift the concurrency limits of " + deployments,
        c -> ConcurrencyLimits.remove(c, deployments));
  }

  /** The concurrency limit of {@code deployment}, if it has one. */
  public synchronized Optional<Integer> concurrencyLimit(String deployment) {
    return run("read the concurrency limit of " + deployment,
        c -> ConcurrencyLimits.get(c, deployment));
  }

  private static <T> T inTransaction(Connection c, SqlBody<T> body) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = body.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private String boundedEvent(NewJob job) {
    String event = CloudEventCodec.toJson(job.event());
    int bytes = event.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > settings.maxEventBytes()) {
      throw new IllegalArgumentException("Cannot enqueue job " + job.identity() + ": event of "
          + bytes + " bytes exceeds the limit of " + settings.maxEventBytes());
    }
    return event;
  }

  /**
   * Claims up to {@code limit} due jobs for {@code owner}, oldest due first, each under a new
   * generation with a lease until now + lease duration. Expired leases on their last attempt
   * become dead in the same statement.
   */
  public List<Lease> claim(String owner, int limit) {
    return claim(owner, limit, leases -> {});
  }

  /**
   * Claims like {@link #claim(String, int)}, handing the leases to {@code beforeCommit} while
   * the claim's commit is still to come: the caller may start the runs during the WAL flush.
   * The rows stay locked until the commit, so no other consumer can claim them meanwhile. The
   * leases count (complete, fail, heartbeat) only once this method has returned; if it throws,
   * the claim never happened, and the generations handed out will be refused.
   */
  public synchronized List<Lease> claim(String owner, int limit,
      Consumer<List<Lease>> beforeCommit) {
    if (limit < 1) {
      throw new IllegalArgumentException("Cannot claim " + limit + " jobs: limit must be >= 1");
    }
    requireDurable("claim jobs");
    Instant now = now();
    Instant until = now.plus(settings.leaseDuration());
    return run("claim jobs for " + owner, c -> inTransaction(c, () -> {
      List<Lease> leases = claimIn(c, owner, limit, now, until);
      if (!leases.isEmpty()) {
        beforeCommit.accept(leases);
      }
      return leases;
    }));
  }

  /**
   * The claim's statements, in one transaction. The first (one round trip, all a claim costs
   * while no limited deployment has a due job with room) buries expired leases on their last
   * attempt, leases due jobs of unlimited deployments, and locks the limited deployments that
   * have a due job and room; the second, only if it locked any, leases their jobs up to their
   * limits ({@link ConcurrencyLimits}).
   */
  private List<Lease> claimIn(Connection c, String owner, int limit, Instant now, Instant until)
      throws SQLException {
    String sql = "with buried as (update verglas_jobs set state = 'dead', lease_owner = null,"
        + " finished_at = ?, last_error = coalesce(last_error, 'lease expired on the last attempt')"
        + " where id in (select id from verglas_jobs where state = 'leased' and run_at <= ?"
        + " and attempts >= max_attempts for update skip locked)),"
        + " due as (select id from verglas_jobs j where " + DUE
        + " and run_at <= ? and attempts < max_attempts and " + ConcurrencyLimits.UNLIMITED
        + " order by run_at, id limit ? for update skip locked),"
        + " claimed as (update verglas_jobs j set state = 'leased', generation = j.generation + 1,"
        + " attempts = j.attempts + 1, lease_owner = ?, run_at = ? from due where j.id = due.id"
        + RETURNING + "), waiting as (" + ConcurrencyLimits.LOCK_WAITING + ")"
        + " select * from claimed union all select null::bigint, null, deployment, null,"
        + " null::int, null::int, null::bigint, null::timestamptz from waiting"
        + " where (select count(*) from claimed) < ?";
    List<Lease> leases;
    List<String> locked = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, ts(now));
      ps.setObject(2, ts(now));
      ps.setObject(3, ts(now));
      ps.setInt(4, limit);
      ps.setString(5, owner);
      ps.setObject(6, ts(until));
      ps.setObject(7, ts(now));
      ps.setObject(8, ts(now));
      ps.setString(9, database.channel());
      ps.setInt(10, limit);
      leases = leases(ps, locked::add);
    }
    if (!locked.isEmpty() && leases.size() < limit) {
      try (PreparedStatement ps = ConcurrencyLimits.claim(c, locked, now, until,
          limit - leases.size(), owner, RETURNING)) {
        leases.addAll(leases(ps, d -> { }));
      }
    }
    return leases;
  }

  /** Extends the lease to now + lease duration; false if {@code lease} is no longer live. */
  public synchronized boolean heartbeat(Lease lease) {
    return fenced("heartbeat job " + lease.identity(), lease,
        "update verglas_jobs set run_at = ? where id = ? and generation = ? and state = 'leased'",
        now().plus(settings.leaseDuration()));
  }

  /** Marks the job done; false (and nothing changes) if {@code lease} is no longer live. */
  public boolean complete(Lease lease) {
    return completeAll(List.of(lease)).contains(lease.jobId());
  }

  /**
   * Marks the jobs of {@code leases} done in one statement, each only if its lease is live;
   * returns the ids of the jobs whose completion counted.
   */
  public synchronized Set<Long> completeAll(List<Lease> leases) {
    if (leases.isEmpty()) {
      return Set.of();
    }
    Long[] ids = new Long[leases.size()];
    Long[] generations = new Long[leases.size()];
    for (int k = 0; k < ids.length; k++) {
      ids[k] = leases.get(k).jobId();
      generations[k] = leases.get(k).generation();
    }
    // A finished job of a limited deployment frees a slot: notify, so consumers waiting for
    // that room claim (a job of an unlimited deployment frees nothing anyone waits for).
    String sql = "with done as (update verglas_jobs j set state = 'done', finished_at = ?,"
        + " lease_owner = null from unnest(?::bigint[], ?::bigint[]) as d(id, generation)"
        + " where j.id = d.id and j.generation = d.generation and j.state = 'leased'"
        + " returning j.id, j.deployment), woken as (select pg_notify(?, '') from done where"
        + " done.deployment in (select deployment from verglas_deployment_limits) limit 1)"
        + " select done.id from done, (select count(*) from woken) w";
    return run(what("complete", leases.size(), leases.get(0).identity()), c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setObject(1, ts(now()));
        ps.setArray(2, c.createArrayOf("int8", ids));
        ps.setArray(3, c.createArrayOf("int8", generations));
        ps.setString(4, database.channel());
        Set<Long> accepted = new HashSet<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            accepted.add(rs.getLong(1));
          }
        }
        return accepted;
      }
    });
  }

  /**
   * Records a failed attempt: the job becomes ready again after the backoff, or dead after its
   * last attempt. Empty if {@code lease} is no longer live (nothing changes).
   */
  public Optional<JobState> fail(Lease lease, String error) {
    return fail(lease, error, false);
  }

  /**
   * Records a failure no retry can cure: the job becomes dead at once, whatever attempts it has
   * left, with {@code reason} as its last error. Fenced like {@link #fail}: empty if
   * {@code lease} is no longer live (a stale generation's failure changes nothing).
   */
  public Optional<JobState> failPermanently(Lease lease, String reason) {
    return fail(lease, reason, true);
  }

  private synchronized Optional<JobState> fail(Lease lease, String error, boolean permanent) {
    Instant now = now();
    Instant retryAt = now.plus(settings.backoff().delayAfter(lease.attempt()));
    String last = "(? or attempts >= max_attempts)";
    String sql = "with f as (update verglas_jobs set"
        + " state = case when " + last + " then 'dead' else 'ready' end,"
        + " run_at = case when " + last + " then run_at else ? end,"
        + " finished_at = case when " + last + " then ? end,"
        + " lease_owner = null, last_error = ?"
        + " where id = ? and generation = ? and state = 'leased' returning state)"
        + " select state, pg_notify(?, '') from f";
    return run("fail job " + lease.identity(), c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setBoolean(1, permanent);
        ps.setBoolean(2, permanent);
        ps.setObject(3, ts(retryAt));
        ps.setBoolean(4, permanent);
        ps.setObject(5, ts(now));
        ps.setString(6, truncate(error));
        ps.setLong(7, lease.jobId());
        ps.setLong(8, lease.generation());
        ps.setString(9, database.channel());
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(JobState.ofSql(rs.getString(1))) : Optional.empty();
        }
      }
    });
  }

  /** The earliest due time of any ready or leased job: the scheduler's only timer. */
  public synchronized Optional<Instant> nextDue() {
    Instant now = now();
    return run("read next due time", c -> JobReads.nextDue(c, now));
  }

  /** The job with {@code identity}, if any. */
  public synchronized Optional<JobStatus> status(String identity) {
    return first("read job " + identity, "identity = ?", identity);
  }

  /** The job of the latest interval enqueued for cron trigger {@code triggerKey}, if any. */
  public synchronized Optional<JobStatus> latestInterval(String triggerKey) {
    return first("read latest interval of " + triggerKey,
        "trigger_key = ? order by interval_start desc", triggerKey);
  }

  /** Every job of cron trigger {@code triggerKey}, by interval start. */
  public synchronized List<JobStatus> intervals(String triggerKey) {
    return select("read intervals of " + triggerKey,
        "trigger_key = ? order by interval_start", triggerKey);
  }

  /** The latest {@code limit} jobs of {@code deployment}, newest enqueued first. */
  public synchronized List<JobStatus> jobs(String deployment, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("Cannot list jobs of " + deployment + ": limit "
          + limit + " is not positive");
    }
    return select("read jobs of " + deployment,
        "deployment = ? order by enqueued_at desc, id desc limit " + limit, deployment);
  }

  /**
   * Deletes the jobs of {@code deployment} that wait to run (state ready: an open cron
   * interval, a retry in backoff), so an undeployed deployment runs nothing more; leased jobs
   * finish. A later deployment of the same name may enqueue the same identities again.
   * Returns how many were deleted.
   */
  public synchronized int cancelReady(String deployment) {
    requireDurable("cancel the jobs of " + deployment);
    return run("cancel the jobs of " + deployment, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "delete from verglas_jobs where deployment = ? and state = 'ready'")) {
        ps.setString(1, deployment);
        return ps.executeUpdate();
      }
    });
  }

  private Optional<JobStatus> first(String what, String where, String arg) {
    return select(what, where + " limit 1", arg).stream().findFirst();
  }

  private List<JobStatus> select(String what, String where, String arg) {
    return run(what, c -> JobReads.select(c, where, arg));
  }

  private boolean fenced(String what, Lease lease, String sql, Instant time) {
    return run(what, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setObject(1, ts(time));
        ps.setLong(2, lease.jobId());
        ps.setLong(3, lease.generation());
        return ps.executeUpdate() == 1;
      }
    });
  }

  /** The leases a statement returns; a row without a job id names a locked deployment. */
  private static List<Lease> leases(PreparedStatement ps, Consumer<String> locked)
      throws SQLException {
    List<Lease> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (rs.getObject(1) == null) {
          locked.accept(rs.getString(3));
          continue;
        }
        CloudEvent event = CloudEventCodec.fromJson(rs.getString(4));
        out.add(new Lease(rs.getLong(1), rs.getString(2), rs.getString(3), event, rs.getInt(5),
            rs.getInt(6), rs.getLong(7), instant(rs, 8)));
      }
    }
    return out;
  }

  private <T> T run(String what, SqlCall<T> call) {
    try {
      if (connection == null) {
        connection = open();
      }
      return call.run(connection);
    } catch (SQLException e) {
      dropIfBroken();
      throw new SchedulerException("Cannot " + what + ": " + e.getMessage(), e);
    }
  }

  private Connection open() throws SQLException {
    Connection c = database.open();
    try (Statement st = c.createStatement()) {
      if (outcomesOnly) {
        st.execute("set synchronous_commit to off");
      }
      if (listening) {
        st.execute("listen " + database.channel());
      }
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * Waits up to {@code millis} for a notification on the queue's channel (returns at once if
   * one arrived meanwhile, e.g. during a claim); true if any. Only on a consumer's queue. After
   * a connection failure the next call reconnects and listens again: notifications sent in
   * between are lost, so callers read the queue after every wait, woken or not.
   */
  synchronized boolean awaitNotification(long millis) {
    if (!listening) {
      throw new IllegalStateException("Cannot wait for notifications: not a consumer's queue");
    }
    int timeout = (int) Math.max(1, Math.min(millis, Integer.MAX_VALUE));
    return run("wait for notifications", c -> {
      PGNotification[] got = c.unwrap(PGConnection.class).getNotifications(timeout);
      return got != null && got.length > 0;
    });
  }

  /** Sends a notification on the queue's channel: wakes every waiting consumer. */
  synchronized void wakeConsumers() {
    run("notify consumers", c -> {
      try (PreparedStatement ps = c.prepareStatement("select pg_notify(?, '')")) {
        ps.setString(1, database.channel());
        ps.executeQuery().close();
        return null;
      }
    });
  }

  private void requireDurable(String what) {
    if (outcomesOnly) {
      throw new IllegalStateException("Cannot " + what + " on an outcomes-only queue: it"
          + " commits without flushing");
    }
  }

  private void dropIfBroken() {
    try {
      if (connection != null && !connection.isValid(1)) {
        connection.close();
        connection = null;
      }
    } catch (SQLException e) {
      connection = null;
    }
  }

  /** "verb job ID" for one job, "verb N jobs" for more: the subject of an error message. */
  private static String what(String verb, int count, String firstIdentity) {
    return count == 1 ? verb + " job " + firstIdentity : verb + " " + count + " jobs";
  }

  private String truncate(String error) {
    String text = error == null ? "" : error;
    return text.length() <= 4000 ? text : text.substring(0, 4000);
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // closing: nothing left to protect
      }
      connection = null;
    }
  }

  @FunctionalInterface
  private interface SqlCall<T> {
    T run(Connection c) throws SQLException;
  }

  @FunctionalInterface
  private interface SqlBody<T> {
    T run() throws SQLException;
  }
}
