package io.verglas.bench.workers;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.cli.local.LocalConfig;
import io.verglas.cli.local.LocalStack;
import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.harness.Deployment;
import io.verglas.workers.harness.HarnessJobHandler;
import io.verglas.workers.harness.HarnessSettings;
import io.verglas.workers.harness.RunObserver;
import io.verglas.workers.harness.RunSpec;
import io.verglas.workers.harness.WorkerEndpoints;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.schedule.Backoff;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.QueueSettings;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * {@code duplicate_effects}: runs of {@link EffectsWorker} on a whole local stack, dispatched by
 * our scheduler on PostgreSQL through the harness, each trigger's first run SIGKILLed at a
 * random point (uniform in [0, 0.9 × a clean run's duration] after its process started), then
 * re-dispatched by the queue's retry. Counted afterwards in the append-only output table:
 * rows beyond one per (trigger, commit, row) are duplicated effects, rows missing are lost
 * effects. Nothing is asserted: the figures are what the table holds.
 */
final class HarnessKills {
  static final String DEPLOYMENT = "effects";
  static final String OUTPUT = "bench.effects";
  private static final Schema OUT = new Schema(
      Types.NestedField.required(1, "trigger", Types.StringType.get()),
      Types.NestedField.required(2, "commit_no", Types.IntegerType.get()),
      Types.NestedField.required(3, "row_no", Types.IntegerType.get()));

  /** What one measurement found. */
  record Outcome(int triggers, int kills, int runs, int dead, long expectedRows, long rows,
      long distinctRows, double cleanRunMs, double seconds) {
    long duplicates() {
      return rows - distinctRows;
    }

    long missing() {
      return expectedRows - distinctRows;
    }
  }

  private HarnessKills() {}

  static Outcome measure(Database database, int triggers, long seed) throws Exception {
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-bench-harness");
        LocalStack stack = LocalStack.start(LocalConfig.builder().dataDir(dir.path()).s3Port(0)
            .flightPort(0).adminPort(0).checkpointInterval(Duration.ofMillis(500))
            .dramCacheBytes(64L << 20).parallelism(1)
            .workersJdbcUrl("none").build())) { // this benchmark runs its own scheduler
      WorkerEndpoints endpoints = stack.endpoints().workerEndpoints(Duration.ofSeconds(60));
      try (VerglasClient client = endpoints.client();
          WorkerHarness harness = new WorkerHarness(endpoints, HarnessSettings.defaults())) {
        client.createTable(new CreateTableRequest(List.of("bench"), "effects", OUT, List.of(),
            PartitionSpec.unpartitioned(), Map.of()));
        Deployment deployment = new Deployment(DEPLOYMENT, null, EffectsWorker.class.getName(),
            Map.of(), Map.of(), DataGrants.of(List.of(), List.of(OUTPUT)), Map.of("out", OUTPUT),
            Duration.ofMinutes(2));
        long t0 = System.nanoTime();
        harness.run(harness.spec(deployment, "clean", event("clean"), "clean#1", 1));
        double cleanMs = (System.nanoTime() - t0) / 1e6;
        return killed(database, harness, deployment, client, triggers, seed, cleanMs);
      }
    }
  }

  private static Outcome killed(Database database, WorkerHarness harness, Deployment deployment,
      VerglasClient client, int triggers, long seed, double cleanMs) throws Exception {
    QueueSettings queue = QueueSettings.builder().maxAttempts(10)
        .backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2))).build();
    RandomKills kills = new RandomKills(new Random(seed), (long) (cleanMs * 0.9));
    long t0 = System.nanoTime();
    int dead = 0;
    try (JobQueue jobs = new JobQueue(database, queue);
        Dispatcher dispatcher = Dispatcher.builder(database,
            new HarnessJobHandler(harness, name -> Optional.of(deployment), kills))
            .queueSettings(queue).concurrency(2).build()) {
      List<NewJob> batch = new ArrayList<>();
      for (int i = 0; i < triggers; i++) {
        batch.add(NewJob.builder("t" + i, DEPLOYMENT, event("t" + i)).build());
      }
      jobs.enqueueAll(batch);
      dispatcher.start();
      for (int i = 0; i < triggers; i++) {
        dead += awaitSettled(jobs, "t" + i) == JobState.DEAD ? 1 : 0;
      }
    } finally {
      kills.close();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    TableClient out = client.table(OUTPUT);
    QueryAnswer answer = out.rows(out.snapshot().snapshotId(), null);
    if (answer.truncated()) {
      throw new IllegalStateException("Cannot count effects: " + OUTPUT + " holds more rows than"
          + " the query node answers at once");
    }
    List<Map<String, Object>> rows = answer.rows();
    Set<String> distinct = new HashSet<>();
    rows.forEach(r -> distinct.add(r.get("trigger") + "/" + r.get("commit_no") + "/" + r.get("row_no")));
    long expected = (long) (triggers + 1) * EffectsWorker.COMMITS * EffectsWorker.ROWS;
    return new Outcome(triggers, kills.kills(), kills.runs(), dead, expected, rows.size(),
        distinct.size(), cleanMs, seconds);
  }

  private static JobState awaitSettled(JobQueue jobs, String identity) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (true) {
      JobState state = jobs.status(identity).orElseThrow().state();
      if (state == JobState.DONE || state == JobState.DEAD) {
        return state;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot measure duplicate effects: job " + identity
            + " is still " + state + " after 5 minutes");
      }
      Thread.sleep(100);
    }
  }

  private static CloudEvent event(String id) {
    return CloudEventBuilder.v1().withId(id).withSource(URI.create("/bench/workers"))
        .withType("io.verglas.bench.tick").build();
  }

  /** SIGKILLs each trigger's first run after a random delay; counts the kills that hit a live run. */
  private static final class RandomKills implements RunObserver, AutoCloseable {
    private final Random random;
    private final long maxDelayMs;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger runs = new AtomicInteger();

    RandomKills(Random random, long maxDelayMs) {
      this.random = random;
      this.maxDelayMs = Math.max(1, maxDelayMs);
    }

    @Override
    public void started(RunSpec run, ProcessHandle process) {
      runs.incrementAndGet();
      if (run.attempt() == 1) {
        long delay;
        synchronized (random) {
          delay = (long) (random.nextDouble() * maxDelayMs);
        }
        timer.schedule(() -> {
          if (process.isAlive() && process.destroyForcibly()) {
            kills.incrementAndGet();
          }
        }, delay, TimeUnit.MILLISECONDS);
      }
    }

    int kills() {
      return kills.get();
    }

    int runs() {
      return runs.get();
    }

    @Override
    public void close() {
      timer.shutdownNow();
    }
  }
}
