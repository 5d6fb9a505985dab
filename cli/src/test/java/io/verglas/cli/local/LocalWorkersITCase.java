package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cli.Verglas;
import io.verglas.events.CatalogEvent;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.workers.deploy.DeploymentRevision;
import io.verglas.workers.deploy.DeploymentStore;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.JobStatus;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.webhook.WebhookEvents;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The worker routes of a local stack, driven by the CLI verbs as an operator would: the docs
 * example deployment file is deployed (its cron trigger starts enqueuing), a manual run of one
 * cron interval aggregates the example's raw events, {@code runs} and {@code logs} show it, a
 * second deploy is revision 2, and undeploy cancels the cron trigger's waiting job. A
 * deployment with a webhook and an event trigger runs on a POST to the admin port's
 * {@code /v1/webhooks/<name>} (its only webhook trigger's short route), its
 * {@code scaling.maxConcurrency} is its limit in the queue, and it runs on a commit to the table it subscribes to, and its webhook
 * answers 404 once undeployed. Needs PostgreSQL at 127.0.0.1:5432 (database test); the
 * scheduler uses a schema of its own.
 */
class LocalWorkersITCase {
  private static final String PG_URL = WorkerHarnessITCase.PG_URL
      + (WorkerHarnessITCase.PG_URL.contains("?") ? "&" : "?") + "user=postgres";
  private static final String EXAMPLE_START = "\"startDate\": \"2026-12-01T00:00:00Z\"";
  private static final long started = System.nanoTime();
  private static final String INTERVAL = "hourly/manual/every-hour/" + HourlyExample.HOUR;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** A worker that logs each trigger's id and type as a row of its output {@code log}. */
  private static final String TRIGGER_LOG = """
      package example;

      import io.verglas.workers.api.Worker;
      import io.verglas.workers.api.WorkerContext;
      import java.util.List;
import java.util.Map;
      import java.util.Map;

      public final class TriggerLog implements Worker {
        @Override
        public void handle(WorkerContext ctx) {
          ctx.output("log").commit(List.of(Map.<String, Object>of(
              "id", ctx.trigger().getId(), "type", ctx.trigger().getType())));
        }
      }
      """;
  private static final String TRIGGERS_DEPLOYMENT = """
      {"version": 1, "name": "triggers", "code": {"jar": "TriggerLog.jar", "class": "example.TriggerLog"},
       "triggers": [{"type": "webhook", "name": "hook"},
                    {"type": "event", "name": "pings", "eventType": "%s", "subject": "shop.pings"}],
       "grants": {"write": ["shop.trigger_log"]}, "outputs": {"log": "shop.trigger_log"},
       "timeout": "PT60S", "scaling": {"maxConcurrency": 2}}
      """.formatted(CatalogEvent.TYPE);

  private static final String SCHEMA =
      "t_deploy_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  @RegisterExtension
  static final LocalStackExtension local = LocalStackExtension.builder()
      .options(config -> config.workersJdbcUrl(PG_URL).workersSchema(SCHEMA)).build();
  private static VerglasClient client;
  private static JobQueue queue;

  @BeforeAll
  static void start() {
    step("stack up");
    client = local.stack().endpoints().workerEndpoints(Duration.ofSeconds(60)).client();
    queue = new JobQueue(Database.of(PG_URL, null, null, SCHEMA), QueueSettings.defaults());
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    local.stop();   // before the scheduler's schema goes
    if (queue != null) {
      queue.close();
      queue.database().dropSchema();
    }
  }

  @Test
  void deployTriggerRunsLogsAndUndeploy() throws Exception {
    assertThat(local.stack().workersStatus()).startsWith("on: scheduler on " + PG_URL);
    assertThat(Files.readString(local.stack().config().endpointsFile()))
        .contains("\"workers\"").contains("\"schema\" : \"" + SCHEMA + "\"");
    HourlyExample.createAndSeed(client);
    Path file = deploymentFile(local.dir().resolve("deploy"));
    step("tables seeded, jar built");

    assertThat(verglas("deploy", file.toString()))
        .startsWith("Deployed hourly revision 1: example.HourlyAggregate in " + file.getParent().resolve("hourly.jar"))
        .contains("triggers: every-hour (cron 0 * * * *)");
    JobStatus open = await("the cron trigger's open interval", () -> queue.jobs("hourly", 10),
        jobs -> jobs.stream().anyMatch(j -> j.state() == JobState.READY)).stream()
        .filter(j -> j.state() == JobState.READY).findFirst().orElseThrow();
    assertThat(open.identity()).startsWith("hourly/every-hour/");
    step("deployed; cron interval enqueued");

    assertThat(verglas("trigger", "hourly", "--cron", "every-hour", "--logical-date",
        HourlyExample.HOUR.toString())).isEqualTo("Enqueued " + INTERVAL + "\n");
    assertThat(verglas("trigger", "hourly", "--cron", "every-hour", "--logical-date",
        HourlyExample.HOUR.toString())).isEqualTo("Already enqueued (nothing added): " + INTERVAL + "\n");
    JobStatus run = await("the manual run", () -> queue.status(INTERVAL).orElseThrow(),
        s -> s.state().finished());
    assertThat(run.state()).as("%s", run).isEqualTo(JobState.DONE);
    step("manual run done");
    assertThat(HourlyExample.aggregates(client))
        .containsExactlyInAnyOrderElementsOf(HourlyExample.EXPECTED);

    assertThat(verglas("runs", "hourly")).containsPattern(INTERVAL + " +done +1 ")
        .containsPattern(open.identity() + " +ready +0 ");
    String logs = await("the run's end in its log", () -> verglas("logs", "hourly", "--run", INTERVAL + "#1"),
        text -> text.contains(" end"));
    assertThat(logs).contains(INTERVAL + "#1 start").contains("commit table=shop.hourly rows=2")
        .contains("end rows=2").contains("2026-12-01T10: 2 items");

    step("runs and logs shown");
    assertThat(verglas("deploy", file.toString())).startsWith("Deployed hourly revision 2:");
    assertThat(verglas("deployments")).containsPattern("hourly +2 active +example.HourlyAggregate");
    assertThat(verglas("undeploy", "hourly")).isEqualTo("Undeployed hourly (revision 3)\n");
    await("the open interval's cancellation", () -> queue.jobs("hourly", 10),
        jobs -> jobs.stream().noneMatch(j -> j.state() == JobState.READY));
    step("undeployed; waiting job cancelled");
    assertThat(verglas("deployments")).containsPattern("hourly +3 undeployed");
    assertThat(new DeploymentStore(client, Clock.systemUTC()).history("hourly"))
        .extracting(DeploymentRevision::revision, DeploymentRevision::state)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, DeploymentRevision.State.ACTIVE),
            org.assertj.core.groups.Tuple.tuple(2, DeploymentRevision.State.ACTIVE),
            org.assertj.core.groups.Tuple.tuple(3, DeploymentRevision.State.UNDEPLOYED));
    StringWriter err = new StringWriter();
    assertThat(command(new StringWriter(), err).execute(endpointsArgs("trigger", "hourly"))).isNotZero();
    assertThat(err.toString()).contains("Cannot trigger hourly: revision 3 undeployed it");
    for (String verb : List.of("runs", "logs")) {
      StringWriter unknown = new StringWriter();
      assertThat(command(new StringWriter(), unknown).execute(endpointsArgs(verb, "nosuch")))
          .isNotZero();
      assertThat(unknown.toString()).contains("no deployment named nosuch");
    }
  }

  @Test
  void webhookAndCommitTriggersRunUntilUndeployed() throws Exception {
    Schema log = new Schema(Types.NestedField.required(1, "id", Types.StringType.get()),
        Types.NestedField.required(2, "type", Types.StringType.get()));
    Schema pings = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    client.createTable(new CreateTableRequest(List.of("shop"), "trigger_log", log, List.of(),
        PartitionSpec.unpartitioned(), Map.of()));
    String pingsUuid = client.createTable(new CreateTableRequest(List.of("shop"), "pings", pings,
        List.of(), PartitionSpec.unpartitioned(), Map.of())).uuid();
    Path work = Files.createDirectories(local.dir().resolve("triggers"));
    ExampleJar.build(Files.writeString(work.resolve("TriggerLog.java"), TRIGGER_LOG), work);
    Path file = Files.writeString(work.resolve("triggers.deployment.json"), TRIGGERS_DEPLOYMENT);
    assertThat(verglas("deploy", file.toString()))
        .contains("triggers: hook (webhook), pings (event)");
    assertThat(await("the deployment's concurrency limit", () -> queue.concurrencyLimit("triggers"),
        java.util.Optional::isPresent)).as("its scaling.maxConcurrency").contains(2);
    step("triggers deployed");

    String admin = "Bearer " + local.stack().endpoints().adminToken();
    HttpResponse<String> accepted = await("the deployment's webhook route",
        () -> postWebhook("triggers", admin), r -> r.statusCode() != 404);
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
    assertThat(postWebhook("triggers", "Bearer not-the-token").statusCode()).isEqualTo(401);
    long snapshot = client.table("shop.pings").commit(List.of(Map.of("id", 1L)), "ping-1");
    String commit = CatalogEvent.eventId(pingsUuid, snapshot);
    List<String> rows = await("a run per trigger", LocalWorkersITCase::triggerLog,
        r -> r.size() >= 2);
    assertThat(rows).containsExactlyInAnyOrder(
        "triggers/webhook/hook/hook-1 " + WebhookEvents.TYPE, commit + " " + CatalogEvent.TYPE);
    JobStatus commitRun = await("the commit run's end", () -> queue.status("triggers/pings/"
        + commit).orElseThrow(), j -> j.state().finished()); // its row is in before its end
    assertThat(commitRun.state()).as("%s", commitRun).isEqualTo(JobState.DONE);
    step("webhook and commit runs done");

    assertThat(verglas("undeploy", "triggers")).isEqualTo("Undeployed triggers (revision 2)\n");
    HttpResponse<String> gone = await("the webhook route's removal",
        () -> postWebhook("triggers", admin), r -> r.statusCode() == 404);
    assertThat(gone.body()).contains("no deployment triggers with a webhook trigger");
    assertThat(queue.concurrencyLimit("triggers")).as("lifted once undeployed").isEmpty();
    step("undeployed; webhook 404");
  }

  /** POSTs a JSON body to the admin port's webhook route, with idempotency key hook-1. */
  private static HttpResponse<String> postWebhook(String deployment, String authorization) {
    HttpRequest request = HttpRequest.newBuilder(
        local.stack().endpoints().adminUri().resolve("/v1/webhooks/" + deployment))
        .header("Authorization", authorization).header("Idempotency-Key", "hook-1")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"ping\": 1}")).build();
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** shop.trigger_log's rows as "id type". */
  private static List<String> triggerLog() {
    TableClient table = client.table("shop.trigger_log");
    TableSnapshot snapshot = table.snapshot();
    return snapshot == null ? List.of() : table.rows(snapshot.snapshotId(), null).rows().stream()
        .map(r -> r.get("id") + " " + r.get("type")).sorted().toList();
  }

  /**
   * The docs example deployment file beside the example worker's jar, as the docs describe,
   * its cron trigger starting at the next hour: the trigger enqueues its first interval, due
   * then, and no past interval runs beside the manual one (a loaded machine's time goes to the
   * run under test).
   */
  private static Path deploymentFile(Path work) throws Exception {
    Path jar = HourlyExample.jar(Files.createDirectories(work));
    Files.move(jar, work.resolve("hourly.jar"), StandardCopyOption.REPLACE_EXISTING);
    String example = Files.readString(
        ExampleJar.root().resolve("docs/examples/workers/hourly.deployment.json"));
    Instant nextHour = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(1, ChronoUnit.HOURS);
    assertThat(example).contains(EXAMPLE_START);
    return Files.writeString(work.resolve("hourly.deployment.json"),
        example.replace(EXAMPLE_START, "\"startDate\": \"" + nextHour + "\""));
  }

  /** Prints how long the test took to reach {@code step} (slow steps on a loaded machine). */
  private static void step(String step) {
    System.out.printf("LocalWorkersITCase %6.1f s: %s%n", (System.nanoTime() - started) / 1e9, step);
  }

  @Test
  void deployWarnsOfEachGrantedTableThatDoesNotExistYetAndStillDeploys() throws Exception {
    client.createTable(new CreateTableRequest(List.of("shop"), "present", new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get())), List.of(),
        PartitionSpec.unpartitioned(), Map.of()));
    Path work = Files.createDirectories(local.dir().resolve("missing"));
    Files.writeString(work.resolve("any.jar"), "not run");
    Path file = Files.writeString(work.resolve("missing.deployment.json"), """
        {"version": 1, "name": "missing", "code": {"jar": "any.jar", "class": "example.Any"},
         "grants": {"read": ["shop.present", "shop.absent_in"], "write": ["shop.absent_out"]},
         "outputs": {"out": "shop.absent_out"}, "timeout": "PT60S"}
        """);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertThat(command(out, err).execute(endpointsArgs("deploy", file.toString()))).isZero();
    assertThat(out.toString()).startsWith("Deployed missing revision 1:");
    assertThat(err.toString().lines()).containsExactly(
        "Warning: deployment missing is granted read on table shop.absent_in, which does not"
            + " exist yet: its runs fail (and are retried) until it is created (`verglas table"
            + " create shop.absent_in ...`)",
        "Warning: deployment missing is granted write on table shop.absent_out, which does not"
            + " exist yet: its runs fail (and are retried) until it is created (`verglas table"
            + " create shop.absent_out ...`)");
    verglas("undeploy", "missing");
  }

  /** Runs {@code verglas ARGS --endpoints FILE} and returns its output; fails unless it exits 0. */
  private static String verglas(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = command(out, err).execute(endpointsArgs(args));
    assertThat(exit).as("verglas %s: %s", List.of(args), err).isZero();
    return out.toString();
  }

  private static CommandLine command(StringWriter out, StringWriter err) {
    return new CommandLine(new Verglas()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
  }

  private static String[] endpointsArgs(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--endpoints";
    all[args.length + 1] = local.stack().config().endpointsFile().toString();
    return all;
  }

  private static <T> T await(String what, java.util.function.Supplier<T> read, Predicate<T> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      T value = read.get();
      if (done.test(value)) {
        return value;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what + "; last: " + value);
      }
      Thread.sleep(200);
    }
  }
}
