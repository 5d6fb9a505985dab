package io.verglas.bench.workers;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.workers.schedule.Database;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code workers}: dispatch on our PostgreSQL scheduler against db-scheduler's one-time tasks
 * (immediate execution on, 100 ms polling) on the same PostgreSQL, each side in a schema of its
 * own, each with {@value #THREADS} handler threads and a handler that only records.
 *
 * <p>{@code dispatch_latency_p50_ms} / {@code _p99_ms}: from just before the enqueue call to the
 * handler's first line, the job submitted in the scheduler's own process (where an event API
 * beside the scheduler submits; db-scheduler's immediate execution likewise applies to jobs
 * scheduled through the executing instance): our row goes in already leased and runs at once.
 * {@code dispatch_latency_notify_*} is the same for a job
 * enqueued by another producer, which reaches the scheduler through NOTIFY and a claim; the
 * peer's counterpart ({@code db_scheduler_other_producer_*}) schedules through a
 * {@code SchedulerClient}, whose job the running scheduler finds by polling, and
 * {@code dispatch_other_producer_p50_vs_db_scheduler} is its p50 over ours. All
 * are measured warm (after {@code warm-up} untimed jobs), one job at a time with
 * {@value #GAP_MILLIS} ms between jobs so each arrives at an idle scheduler (the event-driven
 * case: a webhook or commit event); both schedulers run at once and their samples alternate,
 * so load from other processes hits both alike. {@code runs_per_s}: {@code burst} due jobs
 * enqueued in batches of {@value #BATCH} while the consumer is stopped, then drained: the
 * time from starting the consumer to the last handler's end (the producer's own rate, one
 * WAL flush per enqueue, would otherwise be what is measured).
 * {@code dispatch_p50_vs_db_scheduler} is the peer's p50 over ours. {@code enqueue_call_p50_ms}
 * is the enqueue call alone (its WAL flush included), a part both sides pay before any
 * scheduling happens.
 *
 * <p>{@code queue_msgs_per_s_publish} / {@code _consume}: see {@link QueueThroughput} (1 KiB
 * messages on a cache node over a local directory; no peer); {@code queue_msgs_per_s} is the
 * slower of the two.
 *
 * <p>{@code duplicate_effects}: {@code harness-triggers} runs of a worker (three commits to an
 * append-only table) on a whole local stack, each trigger's first run SIGKILLed at a random
 * point and re-dispatched by the queue ({@link HarnessKills}); rows committed twice are
 * counted, not asserted ({@code missing_effects}: rows never committed; {@code harness_kills}:
 * kills that hit a live run).
 *
 * <p>{@code peak_rss_mb} is of
 * the benchmark JVM holding both schedulers. PostgreSQL comes from
 * {@code -Dverglas.bench.pg-url} (default 127.0.0.1:5432/test, user {@code postgres}).
 */
public final class WorkersBenchmark implements Benchmark {
  static final int THREADS = 4;
  static final long GAP_MILLIS = 5;
  static final int BATCH = 500;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Override
  public String name() {
    return "workers";
  }

  @Override
  public String description() {
    return "Scheduler dispatch latency and runs/s on PostgreSQL vs db-scheduler one-time tasks, "
        + "queue publish and consume msgs/s, duplicate effects after random kills of worker runs";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    String url = System.getProperty("verglas.bench.pg-url", "jdbc:postgresql://127.0.0.1:5432/test");
    String user = System.getProperty("verglas.bench.pg-user", "postgres");
    int warmUp = quick ? 30 : 100;
    int samples = quick ? 150 : 1_000;
    int burst = quick ? 1_000 : 5_000;
    int queueMessages = quick ? 20_000 : 200_000;
    int harnessTriggers = quick ? 10 : 100;
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
        .environment("queue_messages", queueMessages)
        .environment("queue_message", QueueThroughput.PAYLOAD_BYTES + " B payload, a key, one "
            + "header; " + QueueThroughput.PUBLISHERS + " publishers in batches of "
            + QueueThroughput.BATCH + ", " + QueueThroughput.CONSUMERS + " consumers of one group")
        .environment("harness_triggers", harnessTriggers);

    DispatchProbe ourProbe = new DispatchProbe("verglas");
    DispatchProbe peerProbe = new DispatchProbe("db-scheduler");
    try (VerglasSide ourSide = new VerglasSide(
            Database.of(url, user, null, "bench_workers_" + suffix), ourProbe, THREADS);
        DbSchedulerSide peerSide = new DbSchedulerSide(url, user, "bench_dbsched_" + suffix,
            peerProbe, THREADS)) {
      List<Series> series = List.of(new Series("ours", ourSide::enqueue, ourProbe),
          new Series("ours_notify", ourSide::enqueueFromAnotherProducer, ourProbe),
          new Series("db_scheduler", peerSide::enqueue, peerProbe),
          new Series("db_scheduler_client", peerSide::enqueueFromAnotherProducer, peerProbe,
              DbSchedulerSide.POLLING.toMillis()));
      List<Latencies[]> lat = latencies(series, warmUp, samples);
      Latencies ours = lat.get(0)[0];
      Latencies theirs = lat.get(2)[0];
      double ourRuns = drain(ourSide, ourProbe, burst);
      double theirRuns = drain(peerSide, peerProbe, burst);
      QueueThroughput.Figures queue = QueueThroughput.measure(queueMessages);
      report.environment("queue_segments", queue.segments());
      double p50 = ours.percentileMs(0.50);
      double theirP50 = theirs.percentileMs(0.50);
      HarnessKills.Outcome kills = harnessKills(url, user, "bench_harness_" + suffix,
          harnessTriggers);
      return report
          .metric("duplicate_effects", kills.duplicates())
          .metric("missing_effects", kills.missing())
          .metric("harness_kills", kills.kills())
          .metric("harness_runs", kills.runs())
          .metric("harness_dead_jobs", kills.dead())
          .metric("harness_clean_run_ms", Math.round(kills.cleanRunMs()))
          .metric("harness_kill_phase_s", Math.round(kills.seconds() * 10) / 10.0)
          .metric("dispatch_latency_p50_ms", p50)
          .metric("dispatch_latency_p99_ms", ours.percentileMs(0.99))
          .metric("runs_per_s", ourRuns)
          .metric("enqueue_call_p50_ms", lat.get(0)[1].percentileMs(0.50))
          .metric("dispatch_latency_notify_p50_ms", lat.get(1)[0].percentileMs(0.50))
          .metric("dispatch_latency_notify_p99_ms", lat.get(1)[0].percentileMs(0.99))
          .metric("queue_msgs_per_s", queue.sustainedPerSecond())
          .metric("queue_msgs_per_s_publish", queue.publishPerSecond())
          .metric("queue_msgs_per_s_consume", queue.consumePerSecond())
          .peer("db_scheduler_dispatch_latency_p50_ms", theirP50)
          .peer("db_scheduler_dispatch_latency_p99_ms", theirs.percentileMs(0.99))
          .peer("db_scheduler_enqueue_call_p50_ms", lat.get(2)[1].percentileMs(0.50))
          .peer("db_scheduler_runs_per_s", theirRuns)
          .peer("db_scheduler_other_producer_p50_ms", lat.get(3)[0].percentileMs(0.50))
          .peer("db_scheduler_other_producer_p99_ms", lat.get(3)[0].percentileMs(0.99))
          .ratio("dispatch_p50_vs_db_scheduler", theirP50, p50)
          .ratio("dispatch_p99_vs_db_scheduler", theirs.percentileMs(0.99),
              ours.percentileMs(0.99))
          .ratio("dispatch_notify_p50_vs_db_scheduler", theirP50,
              lat.get(1)[0].percentileMs(0.50))
          .ratio("dispatch_other_producer_p50_vs_db_scheduler",
              lat.get(3)[0].percentileMs(0.50), lat.get(1)[0].percentileMs(0.50))
          .ratio("runs_per_s_vs_db_scheduler", ourRuns, theirRuns)
          .build();
    }
  }

  private static HarnessKills.Outcome harnessKills(String url, String user, String schema,
      int triggers) throws Exception {
    Database database = Database.of(url, user, null, schema);
    database.migrate();
    try {
      long seed = System.nanoTime();
      System.out.println("workers: duplicate_effects over " + triggers + " killed runs, seed " + seed);
      return HarnessKills.measure(database, triggers, seed);
    } finally {
      database.dropSchema();
    }
  }

  /**
   * A way to enqueue one job, and the probe its handler reports to. A series served by polling
   * waits a random part of {@code phaseMillis} before each sample, so its jobs arrive at random
   * points of the polling cycle rather than just after a poll.
   */
  private record Series(String name, Enqueue enqueue, DispatchProbe probe, long phaseMillis) {
    Series(String name, Enqueue enqueue, DispatchProbe probe) {
      this(name, enqueue, probe, 0);
    }
  }

  @FunctionalInterface
  private interface Enqueue {
    void enqueue(String id) throws Exception;
  }

  /**
   * Latency samples per series: {enqueue to handler start, enqueue call alone}. The series
   * take turns sample by sample, the first of each round rotating, so load from other
   * processes on a shared machine hits all alike.
   */
  private static List<Latencies[]> latencies(List<Series> series, int warmUp, int samples)
      throws Exception {
    for (int i = 0; i < warmUp; i++) {
      for (Series s : series) {
        latencyOf(s, "warm-" + s.name() + "-" + i);
      }
    }
    long[][][] nanos = new long[series.size()][2][samples];
    for (int i = 0; i < samples; i++) {
      for (int k = 0; k < series.size(); k++) {
        int which = (i + k) % series.size();
        Series s = series.get(which);
        long[] sample = latencyOf(s, "lat-" + s.name() + "-" + i);
        nanos[which][0][i] = sample[0];
        nanos[which][1][i] = sample[1];
      }
    }
    List<Latencies[]> out = new ArrayList<>();
    for (long[][] n : nanos) {
      out.add(new Latencies[] {new Latencies(n[0]), new Latencies(n[1])});
    }
    return out;
  }

  /**
   * Runs per second: with the consumer stopped, {@code burst} due jobs are enqueued in batches;
   * then the consumer starts and drains them. Timed from the start to the last handler's end.
   */
  private static double drain(SchedulerSide side, DispatchProbe probe, int burst)
      throws Exception {
    side.stopConsumer();
    List<String> batch = new ArrayList<>(BATCH);
    for (int i = 0; i < burst; i++) {
      batch.add("burst-" + i);
      if (batch.size() == BATCH || i == burst - 1) {
        side.enqueueAll(batch);
        batch.clear();
      }
    }
    int target = probe.finishedCount() + burst;
    long start = System.nanoTime();
    side.startConsumer();
    probe.awaitFinished(target, WAIT.multipliedBy(4));
    double seconds = (System.nanoTime() - start) / 1e9;
    return Math.round(burst / seconds * 10) / 10.0;
  }

  /** One sample: {enqueue call to handler start, enqueue call alone}, in nanoseconds. */
  private static long[] latencyOf(Series series, String id) throws Exception {
    Thread.sleep(GAP_MILLIS + (series.phaseMillis() > 0
        ? ThreadLocalRandom.current().nextLong(series.phaseMillis()) : 0));
    long t0 = System.nanoTime();
    series.enqueue().enqueue(id);
    long enqueued = System.nanoTime();
    return new long[] {series.probe().awaitStart(id, WAIT) - t0, enqueued - t0};
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
