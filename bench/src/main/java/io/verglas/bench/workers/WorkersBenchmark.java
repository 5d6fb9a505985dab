package io.verglas.bench.workers;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.workers.schedule.Database;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

/**
 * {@code workers}: dispatch on our PostgreSQL scheduler against db-scheduler's one-time tasks
 * (immediate execution on, 100 ms polling) on the same PostgreSQL, each side in a schema of its
 * own, each with {@value #THREADS} handler threads and a handler that only records.
 *
 * <p>{@code dispatch_latency_p50_ms} / {@code _p99_ms}: from just before the enqueue call to the
 * handler's first line, warm (after {@code warm-up} untimed jobs), one job at a time with
 * {@value #GAP_MILLIS} ms between jobs so each arrives at an idle scheduler (the event-driven
 * case: a webhook or commit event). {@code runs_per_s}: {@code burst} jobs enqueued back to
 * back by one producer, divided by the time from the first enqueue to the last handler's end.
 * {@code dispatch_p50_vs_db_scheduler} is the peer's p50 over ours.
 *
 * <p>Not measured: {@code duplicate_effects} and {@code queue_msgs_per_s} need the worker
 * harness and the queues, which are not built; the report says so. {@code peak_rss_mb} is of
 * the benchmark JVM holding both schedulers. PostgreSQL comes from
 * {@code -Dverglas.bench.pg-url} (default 127.0.0.1:5432/test, user {@code postgres}).
 */
public final class WorkersBenchmark implements Benchmark {
  static final int THREADS = 4;
  static final long GAP_MILLIS = 5;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Override
  public String name() {
    return "workers";
  }

  @Override
  public String description() {
    return "Scheduler dispatch latency and runs/s on PostgreSQL vs db-scheduler one-time tasks "
        + "(harness and queue figures not built yet)";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    String url = System.getProperty("verglas.bench.pg-url", "jdbc:postgresql://127.0.0.1:5432/test");
    String user = System.getProperty("verglas.bench.pg-user", "postgres");
    int warmUp = quick ? 30 : 100;
    int samples = quick ? 150 : 1_000;
    int burst = quick ? 1_000 : 5_000;
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .environment("postgresql", serverVersion(url, user))
        .environment("handler_threads", THREADS)
        .environment("latency_samples", samples)
        .environment("latency_warm_up", warmUp)
        .environment("latency_gap_ms", GAP_MILLIS)
        .environment("burst_jobs", burst)
        .environment("peer", "db-scheduler 16.7.1 one-time tasks, immediate execution, 100 ms "
            + "polling, Hikari pool")
        .environment("not_measured", "duplicate_effects and queue_msgs_per_s: the worker "
            + "harness and the queues are not built yet");

    Side ours;
    DispatchProbe ourProbe = new DispatchProbe("verglas");
    try (VerglasSide side = new VerglasSide(
        Database.of(url, user, null, "bench_workers_" + suffix), ourProbe, THREADS)) {
      ours = measure(side, ourProbe, warmUp, samples, burst);
    }
    Side theirs;
    DispatchProbe peerProbe = new DispatchProbe("db-scheduler");
    try (DbSchedulerSide side = new DbSchedulerSide(url, user, "bench_dbsched_" + suffix,
        peerProbe, THREADS)) {
      theirs = measure(side, peerProbe, warmUp, samples, burst);
    }
    double p50 = ours.latencies().percentileMs(0.50);
    double theirP50 = theirs.latencies().percentileMs(0.50);
    return report
        .metric("dispatch_latency_p50_ms", p50)
        .metric("dispatch_latency_p99_ms", ours.latencies().percentileMs(0.99))
        .metric("runs_per_s", ours.runsPerSecond())
        .peer("db_scheduler_dispatch_latency_p50_ms", theirP50)
        .peer("db_scheduler_dispatch_latency_p99_ms", theirs.latencies().percentileMs(0.99))
        .peer("db_scheduler_runs_per_s", theirs.runsPerSecond())
        .ratio("dispatch_p50_vs_db_scheduler", theirP50, p50)
        .ratio("dispatch_p99_vs_db_scheduler", theirs.latencies().percentileMs(0.99),
            ours.latencies().percentileMs(0.99))
        .ratio("runs_per_s_vs_db_scheduler", ours.runsPerSecond(), theirs.runsPerSecond())
        .build();
  }

  /** One side's figures. */
  record Side(Latencies latencies, double runsPerSecond) {}

  private static Side measure(SchedulerSide side, DispatchProbe probe, int warmUp, int samples,
      int burst) throws Exception {
    for (int i = 0; i < warmUp; i++) {
      latencyOf(side, probe, "warm-" + i);
    }
    long[] nanos = new long[samples];
    for (int i = 0; i < samples; i++) {
      nanos[i] = latencyOf(side, probe, "lat-" + i);
    }
    int before = probe.finishedCount();
    long start = System.nanoTime();
    for (int i = 0; i < burst; i++) {
      side.enqueue("burst-" + i);
    }
    probe.awaitFinished(before + burst, WAIT.multipliedBy(4));
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Side(new Latencies(nanos), Math.round(burst / seconds * 10) / 10.0);
  }

  private static long latencyOf(SchedulerSide side, DispatchProbe probe, String id)
      throws Exception {
    Thread.sleep(GAP_MILLIS);
    long t0 = System.nanoTime();
    side.enqueue(id);
    return probe.awaitStart(id, WAIT) - t0;
  }

  private static String serverVersion(String url, String user) throws Exception {
    try (Connection c = DriverManager.getConnection(url, user, null);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("show server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
