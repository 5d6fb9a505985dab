package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.QueueGrants;
import io.verglas.workers.harness.Deployment;
import io.verglas.workers.harness.HarnessJobHandler;
import io.verglas.workers.harness.HarnessSettings;
import io.verglas.workers.harness.RunEvent;
import io.verglas.workers.harness.RunObserver;
import io.verglas.workers.harness.RunResult;
import io.verglas.workers.harness.RunSpec;
import io.verglas.workers.harness.WorkerEndpoints;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.harness.WorkerRunException;
import io.verglas.workers.schedule.Backoff;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.JobStatus;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.trigger.CronTickEvents;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The worker harness against a whole local stack and the PostgreSQL scheduler: a run SIGKILLed
 * after a random number of its commits and re-dispatched by the queue leaves its output table
 * exactly as one clean run does (append-only output, so a commit made twice would show); a
 * write outside the deployment's grants fails the run with a clear error; a run past its timeout
 * is killed; a worker publishes to and consumes from the queue it is granted, and touching
 * another queue fails the run with a clear error, logged, with nothing written to that queue;
 * every run's events land in its deployment's logs table; the example worker of
 * {@code docs/examples/workers}, compiled into a jar, aggregates an hour of raw events.
 */
class WorkerHarnessITCase {
  static final String PG_URL =
      System.getProperty("verglas.test.pg-url", "jdbc:postgresql://127.0.0.1:5432/test");
  static final Schema OUT = new Schema(
      Types.NestedField.required(1, "trigger", Types.StringType.get()),
      Types.NestedField.required(2, "batch", Types.IntegerType.get()),
      Types.NestedField.required(3, "n", Types.IntegerType.get()));
  static final int BATCHES = 3;
  static final int ROWS = 4;

  @RegisterExtension
  static final LocalStackExtension local = LocalStackExtension.builder().build();
  private static VerglasClient client;
  private static WorkerHarness harness;
  private static WorkerEndpoints endpoints;

  @BeforeAll
  static void start() {
    endpoints = local.stack().endpoints().workerEndpoints(Duration.ofSeconds(60));
    client = endpoints.client();
    harness = new WorkerHarness(endpoints, HarnessSettings.defaults(), local.stack().scopedTokens());
    for (String table : List.of("clean", "killed", "raw", "relayed")) {
      client.createTable(new CreateTableRequest(List.of("shop"), table, OUT, List.of(),
          PartitionSpec.unpartitioned(), Map.of()));
    }
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
      client.close();
    }
  }

  @Test
  void killedAndRedispatchedRunEqualsOneCleanRun() throws Exception {
    long seed = System.nanoTime();
    int killAfter = 1 + new Random(seed).nextInt(BATCHES - 1);
    System.out.println("WorkerHarnessITCase seed " + seed + ": kill after commit " + killAfter);
    CloudEvent event = event("tick-1");
    RunResult clean = harness.run(harness.spec(batches("clean", "shop.clean"), "tick-1", event,
        "tick-1#clean", 1));
    assertThat(clean.commits()).isEqualTo(BATCHES);
    assertThat(clean.rows()).isEqualTo(BATCHES * ROWS);

    KillAfterCommits killer = new KillAfterCommits(killAfter);
    Database database = Database.of(PG_URL, "postgres", null,
        "t_harness_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    database.migrate();
    QueueSettings queue = QueueSettings.builder()
        .backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1))).build();
    Deployment killed = batches("killed", "shop.killed");
    try (JobQueue jobs = new JobQueue(database, queue);
        Dispatcher dispatcher = Dispatcher.builder(database,
            new HarnessJobHandler(harness, name -> Optional.of(killed), killer))
            .queueSettings(queue).build().start()) {
      dispatcher.submit(NewJob.builder("tick-1", "killed", event).build());
      JobStatus status = awaitSettled(jobs, "tick-1");
      assertThat(status.state()).as("job %s", status).isEqualTo(JobState.DONE);
      assertThat(status.attempts()).isEqualTo(2);
    } finally {
      database.dropSchema();
    }
    assertThat(killer.killed()).as("the first run was killed").isTrue();
    assertThat(rows("shop.killed")).hasSize(BATCHES * ROWS).isEqualTo(rows("shop.clean"));

    List<Map<String, Object>> log = awaitLog("killed", 2);
    assertThat(log).filteredOn(r -> "error".equals(r.get("kind"))).singleElement()
        .satisfies(r -> assertThat((String) r.get("message")).contains("exited with status 137"));
    assertThat(log).filteredOn(r -> "commit".equals(r.get("kind")))
        .extracting(r -> r.get("idempotency_key")).as("attempt 2 re-made attempt 1's commits under the same keys")
        .containsOnly("killed/tick-1/c0", "killed/tick-1/c1", "killed/tick-1/c2");
    assertThat(log).filteredOn(r -> "end".equals(r.get("kind"))).singleElement()
        .satisfies(r -> assertThat(((Number) r.get("rows")).longValue()).isEqualTo(BATCHES * ROWS));
  }

  @Test
  void writeOutsideTheGrantsFailsWithAClearError() {
    Deployment trespasser = new Deployment("trespasser", null,
        TestingWorkers.Trespasser.class.getName(), Map.of("target", "shop.raw"), Map.of(),
        DataGrants.of(List.of("shop.raw"), List.of("shop.clean")), Map.of(), Duration.ofSeconds(60));
    assertThatThrownBy(() -> harness.run(harness.spec(trespasser, "t-1", event("t-1"), "t-1#1", 1)))
        .isInstanceOfSatisfying(WorkerRunException.class, e -> assertThat(e.permanent())
            .as("a grant refusal is not retried").isTrue())
        .hasMessageContaining("Cannot write table shop.raw: the deployment is granted only "
            + "[shop.clean] for writes");
    assertThat(client.table("shop.raw").snapshot()).as("nothing written").isNull();
  }

  @Test
  void writeThatBypassesTheContextIsRefusedByTheServer() {
    Deployment bypasser = new Deployment("bypasser", null,
        TestingWorkers.Bypass.class.getName(), Map.of("target", "shop.raw"), Map.of(),
        DataGrants.of(List.of("shop.raw"), List.of("shop.clean")), Map.of(), Duration.ofSeconds(60));
    assertThatThrownBy(() -> harness.run(harness.spec(bypasser, "b-1", event("b-1"), "b-1#1", 1)))
        .isInstanceOfSatisfying(WorkerRunException.class, e -> assertThat(e.permanent())
            .as("the server's refusal is an ordinary failure").isFalse())
        .hasMessageContaining("Cannot write table shop.raw: token for bypasser/b-1#1 grants "
            + "writes only on [shop.clean]");
    assertThat(client.table("shop.raw").snapshot()).as("nothing written").isNull();
  }

  @Test
  void grantedQueueIsPublishedToAndConsumed() throws Exception {
    Deployment relay = new Deployment("relay", null, TestingWorkers.QueueRelay.class.getName(),
        Map.of("queue", "orders", "count", "3"), Map.of(),
        DataGrants.of(List.of(), List.of("shop.relayed"))
            .withQueues(QueueGrants.of(List.of("orders"), List.of("orders"))),
        Map.of("out", "shop.relayed"), Duration.ofSeconds(90));
    RunResult result = harness.run(harness.spec(relay, "q-1", event("q-1"), "q-1#1", 1));
    assertThat(result.commits()).isEqualTo(1);
    assertThat(rows("shop.relayed")).containsExactly("q-1/0/0", "q-1/0/1", "q-1/0/2");
    List<Map<String, Object>> log = awaitLogRows("relay", rows -> count(rows, "end", null) == 1
        && count(rows, "log", null) == 1 && count(rows, "commit", null) == 1);
    assertThat(log).filteredOn(r -> "log".equals(r.get("kind"))).extracting(r -> r.get("message"))
        .as("the messages came back, keyed by their place in the run")
        .containsExactly("consumed [m0=relay/q-1/p0.0, m1=relay/q-1/p0.1, m2=relay/q-1/p0.2]");
    assertThat(log).filteredOn(r -> "commit".equals(r.get("kind"))).singleElement()
        .satisfies(r -> assertThat((String) r.get("idempotency_key"))
            .as("a commit after consuming is keyed by what was consumed")
            .matches("relay/q-1/q(/orders@\\d+:\\d+-\\d+:\\d+)+/c0"));
  }

  @ParameterizedTest
  @CsvSource({"publish, publish to", "consume, consume from"})
  void queueOutsideTheGrantsFailsWithAClearError(String verb, String phrase) throws Exception {
    String name = "relay-" + verb;
    String refusal = "Cannot " + phrase + " queue ledger: deployment " + name
        + " is not granted " + verb + " on it (granted " + verb + ": [orders])";
    Deployment relay = relay(name, Map.of("other", "ledger", "trespass", verb));
    assertThatThrownBy(() -> harness.run(harness.spec(relay, "t-1", event("t-1"), "t-1#1", 1)))
        .isInstanceOf(WorkerRunException.class).hasMessageContaining(refusal);
    List<Map<String, Object>> log = awaitLogRows(name, rows -> count(rows, "permanent_error", null) == 1
        && count(rows, "log", null) == 2); // what it consumed, then the refusal
    assertThat(log).filteredOn(r -> "error".equals(r.get("level")))
        .extracting(r -> r.get("message")).as("the refusal is logged").containsExactly(refusal);
    assertThat(log).filteredOn(r -> "permanent_error".equals(r.get("kind"))).singleElement()
        .satisfies(r -> assertThat((String) r.get("message")).contains(refusal));
    try (S3Client s3 = endpoints.queues().newClient()) {
      for (String prefix : List.of("_queues/ledger/", "_queues.groups/ledger/")) {
        assertThat(s3.listObjectsV2(b -> b.bucket(endpoints.queues().bucket()).prefix(prefix))
            .contents()).as("nothing written under %s", prefix).isEmpty();
      }
    }
  }

  @Test
  void queueOutsideTheGrantsIsRefusedByTheServerToAWorkerThatBypassesItsContext()
      throws Exception {
    String bucket = endpoints.queues().bucket();
    try (S3Client s3 = endpoints.queues().newClient()) {
      s3.putObject(b -> b.bucket(bucket).key("shop/raw/data/file.parquet"),
          software.amazon.awssdk.core.sync.RequestBody.fromString("table file"));
    }
    Deployment bypass = new Deployment("queue-bypass", null,
        TestingWorkers.QueueBypass.class.getName(), Map.of("queue", "parcels", "other", "vault",
            "file", "shop/raw/data/file.parquet"), Map.of(),
        DataGrants.of(List.of(), List.of())
            .withQueues(QueueGrants.of(List.of("parcels"), List.of("parcels"))),
        Map.of(), Duration.ofSeconds(60));
    assertThatThrownBy(() -> harness.run(harness.spec(bypass, "v-1", event("v-1"), "v-1#1", 1)))
        .isInstanceOfSatisfying(WorkerRunException.class, e -> assertThat(e.permanent()).isFalse())
        .hasMessageContaining("Access Denied: Cannot read object " + bucket
            + "/_queues/vault/high-water: token for queue-bypass/v-1#1 grants only [read-write "
            + bucket + "/_queues.groups/parcels/*, read-write " + bucket
            + "/_queues/parcels.dead.*, read-write " + bucket + "/_queues/parcels/*]")
        .hasMessageContaining("Status Code: 403");
    List<Map<String, Object>> log = awaitLogRows("queue-bypass",
        rows -> count(rows, "error", null) == 1 && count(rows, "log", null) == 2);
    assertThat(log).filteredOn(r -> "log".equals(r.get("kind"))).extracting(r -> r.get("message"))
        .as("the granted queue works with the session it holds; a table file is refused")
        .containsExactly("holds a session of VGS; consumed 1", "file write got 403");
    try (S3Client s3 = endpoints.queues().newClient()) {
      assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("_queues/vault/")).contents())
          .as("nothing landed in the queue not granted").isEmpty();
      assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("shop/raw/data/file.parquet"))
          .asUtf8String()).isEqualTo("table file");
    }
  }

  @Test
  void runPastItsTimeoutIsKilled() {
    Deployment sleeper = new Deployment("sleeper", null, TestingWorkers.Sleeper.class.getName(),
        Map.of(), Map.of(), DataGrants.of(List.of(), List.of()), Map.of(), Duration.ofSeconds(3));
    long start = System.nanoTime();
    assertThatThrownBy(() -> harness.run(harness.spec(sleeper, "s-1", event("s-1"), "s-1#1", 1)))
        .isInstanceOfSatisfying(WorkerRunException.class, e -> assertThat(e.timedOut()).isTrue())
        .hasMessageContaining("timed out after 3000 ms; the worker process was killed");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void docsExampleAggregatesAnHour(@TempDir Path work) throws Exception {
    Path jar = HourlyExample.jar(work);
    HourlyExample.createAndSeed(client);
    Instant ten = HourlyExample.HOUR;
    Deployment hourly = new Deployment("hourly", jar, HourlyExample.WORKER_CLASS,
        Map.of("source", "shop.raw_events"), Map.of(),
        DataGrants.of(List.of("shop.raw_events"), List.of("shop.hourly")),
        Map.of("hourly", "shop.hourly"), Duration.ofSeconds(90));
    CloudEvent tick = CloudEventBuilder.v1().withId("hourly/every-hour/" + ten)
        .withSource(URI.create("/verglas/deployments/hourly/triggers/every-hour"))
        .withType(CronTickEvents.TYPE).withExtension(CronTickEvents.INTERVAL_START, ten.toString())
        .withExtension(CronTickEvents.INTERVAL_END, ten.plusSeconds(3600).toString()).build();
    RunResult result = harness.run(harness.spec(hourly, tick.getId(), tick, tick.getId() + "#1", 1));
    assertThat(result.commits()).isEqualTo(1);
    assertThat(HourlyExample.aggregates(client))
        .containsExactlyInAnyOrderElementsOf(HourlyExample.EXPECTED);
  }

  /** {@link TestingWorkers.QueueRelay} granted publishing to and consuming from {@code orders}. */
  private static Deployment relay(String name, Map<String, String> config) {
    Map<String, String> all = new java.util.HashMap<>(config);
    all.putAll(Map.of("queue", "orders", "count", "3"));
    return new Deployment(name, null, TestingWorkers.QueueRelay.class.getName(), all, Map.of(),
        DataGrants.of(List.of(), List.of())
            .withQueues(QueueGrants.of(List.of("orders"), List.of("orders"))),
        Map.of(), Duration.ofSeconds(90));
  }

  private static Deployment batches(String name, String out) {
    return new Deployment(name, null, TestingWorkers.Batches.class.getName(),
        Map.of("batches", String.valueOf(BATCHES), "rows", String.valueOf(ROWS)), Map.of(),
        DataGrants.of(List.of(), List.of(out)), Map.of("out", out), Duration.ofSeconds(90));
  }

  private static CloudEvent event(String id) {
    return CloudEventBuilder.v1().withId(id).withSource(URI.create("/test/harness"))
        .withType("io.verglas.test.tick").build();
  }

  /** The table's rows as sorted "trigger/batch/n" strings (duplicates kept). */
  private static List<String> rows(String table) {
    TableClient t = client.table(table);
    TableSnapshot snapshot = t.snapshot();
    return t.rows(snapshot.snapshotId(), null).rows().stream()
        .map(r -> r.get("trigger") + "/" + r.get("batch") + "/" + r.get("n")).sorted().toList();
  }

  private static JobStatus awaitSettled(JobQueue jobs, String identity) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JobStatus status = jobs.status(identity).orElseThrow();
      if (status.state() == JobState.DONE || status.state() == JobState.DEAD
          || System.nanoTime() > deadline) {
        return status;
      }
      Thread.sleep(200);
    }
  }

  /**
   * The deployment's log rows once it holds an end event, {@code attempts} start events and
   * every commit of the last attempt (events of one run may become visible out of order).
   */
  private static List<Map<String, Object>> awaitLog(String deployment, int attempts)
      throws InterruptedException {
    return awaitLogRows(deployment, rows -> count(rows, "start", null) == attempts
        && count(rows, "end", null) == 1 && count(rows, "commit", attempts) == BATCHES);
  }

  private static long count(List<Map<String, Object>> rows, String kind, Integer attempt) {
    return rows.stream().filter(r -> kind.equals(r.get("kind"))
        && (attempt == null || attempt == ((Number) r.get("attempt")).intValue())).count();
  }

  /** The deployment's log rows once they satisfy {@code until} (or after a minute). */
  /**
   * The deployment's log rows in the order the runs appended them (run, then seq): a table's
   * rows come back in no particular order (one data file per commit, files in any order).
   */
  private static List<Map<String, Object>> awaitLogRows(String deployment,
      java.util.function.Predicate<List<Map<String, Object>>> until) throws InterruptedException {
    TableClient logs = client.table(WorkerHarness.logsTable(deployment));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    java.util.Comparator<Map<String, Object>> runOrder = java.util.Comparator
        .comparing((Map<String, Object> r) -> (String) r.get("run"))
        .thenComparingInt(r -> ((Number) r.get("seq")).intValue());
    while (true) {
      TableSnapshot snapshot = logs.snapshot();
      List<Map<String, Object>> rows = snapshot == null ? List.of()
          : logs.rows(snapshot.snapshotId(), null).rows().stream().sorted(runOrder).toList();
      if (until.test(rows) || System.nanoTime() > deadline) {
        return rows;
      }
      Thread.sleep(300);
    }
  }

  /** Kills the first run's process (SIGKILL) once it reported {@code after} commits. */
  private static final class KillAfterCommits implements RunObserver {
    private final int after;
    private final AtomicReference<ProcessHandle> first = new AtomicReference<>();
    private final AtomicInteger commits = new AtomicInteger();
    private final AtomicBoolean killed = new AtomicBoolean();

    KillAfterCommits(int after) {
      this.after = after;
    }

    @Override
    public void started(RunSpec run, ProcessHandle process) {
      first.compareAndSet(null, process);
    }

    @Override
    public void event(RunSpec run, RunEvent event) {
      if (event.kind() == RunEvent.Kind.COMMIT && !killed.get()
          && commits.incrementAndGet() == after) {
        killed.set(first.get().destroyForcibly());
      }
    }

    boolean killed() {
      return killed.get();
    }
  }
}
