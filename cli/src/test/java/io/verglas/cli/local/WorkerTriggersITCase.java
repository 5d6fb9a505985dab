package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.events.CatalogEvent;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.deploy.DeploymentRecord;
import io.verglas.workers.deploy.DeploymentScheduler;
import io.verglas.workers.harness.Deployment;
import io.verglas.workers.harness.HarnessJobHandler;
import io.verglas.workers.harness.HarnessSettings;
import io.verglas.workers.harness.RunObserver;
import io.verglas.workers.harness.RunTarget;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.schedule.Backoff;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.JobState;
import io.verglas.workers.schedule.JobStatus;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.QueueSettings;
import io.verglas.workers.subscribe.EventSubscriber;
import io.verglas.workers.subscribe.FeedPositions;
import io.verglas.workers.subscribe.Subscription;
import io.verglas.workers.webhook.WebhookEndpoint;
import io.verglas.workers.webhook.WebhookSettings;
import io.verglas.workers.webhook.WebhookSignature;
import io.verglas.workers.webhook.WebhookTarget;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Webhook and commit-event triggers end to end, on a whole local stack and the PostgreSQL
 * scheduler: a POST to one of a deployment's two webhook triggers, each with its own route and
 * secret, becomes a job whose harness run writes the body's rows (a retried delivery runs once,
 * the same key on the other trigger is another job; a bad token is 401, an unknown deployment
 * 404, the deployment's short route 409); secrets are read as each run starts (a rotated file
 * is seen by the next run, a missing one fails the run naming its reference in the run's log
 * events); a commit to a table runs the
 * worker subscribed to its commits once, and a restarted subscriber, resumed from its stored
 * position or even from the feed's start, runs nothing again.
 */
class WorkerTriggersITCase {
  static final Schema ROWS = new Schema(
      Types.NestedField.required(1, "trigger", Types.StringType.get()),
      Types.NestedField.required(2, "id", Types.LongType.get()),
      Types.NestedField.required(3, "v", Types.StringType.get()));
  static final String SECRET = "whsec_dHJpZ2dlcnMtaXQtc2VjcmV0";
  static final String OTHER_SECRET = "the-other-trigger's-secret";

  @RegisterExtension
  static final LocalStackExtension local = LocalStackExtension.builder().build();
  private static VerglasClient client;
  private static WorkerHarness harness;
  private static Database database;
  private static JobQueue jobs;
  private static Dispatcher dispatcher;
  private static WebhookHttpServer webhooks;
  private static String ordersUuid;
  private static Path secretFile;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    var endpoints = local.stack().endpoints().workerEndpoints(Duration.ofSeconds(60));
    client = endpoints.client();
    harness = new WorkerHarness(endpoints, HarnessSettings.defaults());
    for (String table : List.of("hooks", "orders", "seen", "secrets")) {
      String uuid = client.createTable(new CreateTableRequest(List.of("shop"), table, ROWS,
          List.of(), PartitionSpec.unpartitioned(), Map.of())).uuid();
      if (table.equals("orders")) {
        ordersUuid = uuid;
      }
    }
    database = Database.of(WorkerHarnessITCase.PG_URL, "postgres", null,
        "t_triggers_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    database.migrate();
    QueueSettings queue = QueueSettings.builder()
        .backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1))).build();
    jobs = new JobQueue(database, queue);
    secretFile = local.dir().resolve("token");
    Map<String, RunTarget> deployments = Map.of(
        "hooks", RunTarget.of(deployment("hooks", TestingWorkers.WebhookRows.class, "shop.hooks")),
        "recorder", RunTarget.of(deployment("recorder", TestingWorkers.EventRecorder.class,
            "shop.seen")),
        "secrets", DeploymentScheduler.target(DeploymentRecord.builder("secrets")
            .code(local.dir().resolve("on-the-class-path.jar").toUri(),
                TestingWorkers.SecretRows.class.getName())
            .secret("token", "file:" + secretFile).write("shop.secrets")
            .output("out", "shop.secrets").build(), Map.of()));
    dispatcher = Dispatcher.builder(database, HarnessJobHandler.ofTargets(harness,
        name -> Optional.ofNullable(deployments.get(name)), RunObserver.NONE))
        .queueSettings(queue).build().start();
    webhooks = new WebhookHttpServer(new WebhookEndpoint(
        WebhookSettings.builder().adminToken(local.stack().endpoints().adminToken()).build(),
        name -> name.equals("hooks") ? List.of(WebhookTarget.of("hooks", "signed", SECRET),
            WebhookTarget.of("hooks", "other", OTHER_SECRET)) : List.of(),
        dispatcher::submit));
  }

  @AfterAll
  static void stop() throws Exception {
    if (webhooks != null) {
      webhooks.close();
    }
    if (dispatcher != null) {
      dispatcher.close();
      jobs.close();
      database.dropSchema();
    }
    if (harness != null) {
      harness.close();
      client.close();
    }
  }

  @Test
  void webhookDeliveryRunsOnceAndBadRequestsAreRefused() throws Exception {
    String body = "{\"rows\":[{\"id\":1,\"v\":\"a\"},{\"id\":2,\"v\":\"b\"}]}";
    String admin = "Bearer " + local.stack().endpoints().adminToken();
    HttpResponse<String> first = post("hooks/signed", body, "Authorization", admin,
        "Idempotency-Key", "delivery-1", "Content-Type", "application/json");
    HttpResponse<String> retried = post("hooks/signed", body, "Authorization", admin,
        "Idempotency-Key", "delivery-1", "Content-Type", "application/json");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
    assertThat(retried.body()).contains("\"duplicate\":true");
    HttpResponse<String> ambiguous = post("hooks", body, "Authorization", admin);
    assertThat(ambiguous.statusCode()).as(ambiguous.body()).isEqualTo(409);
    assertThat(ambiguous.body()).contains("has 2 webhook triggers [signed, other]");

    byte[] signedBody = "{\"rows\":[{\"id\":3,\"v\":\"c\"}]}".getBytes(StandardCharsets.UTF_8);
    String signedText = new String(signedBody, StandardCharsets.UTF_8);
    long now = Instant.now().getEpochSecond();
    HttpResponse<String> signed = post("hooks/signed", signedText,
        WebhookSignature.ID, "msg-1", WebhookSignature.TIMESTAMP, String.valueOf(now),
        WebhookSignature.SIGNATURE, WebhookSignature.header(SECRET, "msg-1", now, signedBody),
        "Content-Type", "application/json");
    assertThat(signed.statusCode()).as(signed.body()).isEqualTo(202);
    HttpResponse<String> otherSigned = post("hooks/other", signedText,
        WebhookSignature.ID, "msg-1", WebhookSignature.TIMESTAMP, String.valueOf(now),
        WebhookSignature.SIGNATURE, WebhookSignature.header(OTHER_SECRET, "msg-1", now, signedBody),
        "Content-Type", "application/json");
    assertThat(otherSigned.statusCode()).as("the same id on the other trigger, its own secret")
        .isEqualTo(202);
    assertThat(post("hooks/other", signedText, WebhookSignature.ID, "msg-2",
        WebhookSignature.TIMESTAMP, String.valueOf(now), WebhookSignature.SIGNATURE,
        WebhookSignature.header(SECRET, "msg-2", now, signedBody)).statusCode())
        .as("signed with the other trigger's secret").isEqualTo(401);

    assertThat(post("hooks/signed", body, "Authorization", "Bearer not-the-token").statusCode())
        .isEqualTo(401);
    assertThat(post("nobody", body, "Authorization", admin).statusCode()).isEqualTo(404);

    assertThat(awaitDone("hooks/webhook/signed/delivery-1").attempts()).isEqualTo(1);
    awaitDone("hooks/webhook/signed/msg-1");
    awaitDone("hooks/webhook/other/msg-1");
    assertThat(post("hooks/signed", body, "Authorization", admin, "Idempotency-Key", "delivery-1",
        "Content-Type", "application/json").statusCode()).as("retried after the run").isEqualTo(200);
    assertThat(rows("shop.hooks")).containsExactly("hooks/webhook/other/msg-1/3/c",
        "hooks/webhook/signed/delivery-1/1/a", "hooks/webhook/signed/delivery-1/2/b",
        "hooks/webhook/signed/msg-1/3/c");
    assertThat(jobCount("hooks")).isEqualTo(3);
  }

  @Test
  void secretsAreReadAsEachRunStarts() throws Exception {
    Files.writeString(secretFile, "first\n");
    dispatcher.submit(secretsJob("s1"));
    awaitDone("secrets/s1");
    Files.writeString(secretFile, "rotated\n"); // no redeploy, no restart
    dispatcher.submit(secretsJob("s2"));
    awaitDone("secrets/s2");
    assertThat(rows("shop.secrets")).containsExactly("secrets/s1/0/first", "secrets/s2/0/rotated");

    Files.delete(secretFile);
    dispatcher.submit(secretsJob("s3"));
    await(() -> jobs.status("secrets/s3").map(s -> s.state() == JobState.DEAD).orElse(false),
        "the run without its secret failed");
    String reason = "Cannot resolve secret 'token' (file:" + secretFile + ") of deployment secrets";
    assertThat(jobs.status("secrets/s3").orElseThrow().lastError()).hasValueSatisfying(e ->
        assertThat(e).contains(reason));
    TableClient logs = client.table(WorkerHarness.logsTable("secrets"));
    await(() -> logRows(logs).stream().anyMatch(r -> "error".equals(r.get("kind"))),
        "the run's error event");
    List<Map<String, Object>> errors = logRows(logs).stream()
        .filter(r -> "secrets/s3".equals(r.get("trigger"))).toList();
    assertThat(errors).extracting(r -> r.get("kind")).containsExactly("start", "error");
    assertThat((String) errors.get(1).get("message")).contains(reason).doesNotContain("rotated");
  }

  private static NewJob secretsJob(String id) {
    String identity = "secrets/" + id;
    return NewJob.builder(identity, "secrets", CloudEventBuilder.v1().withId(identity)
        .withSource(URI.create("/test")).withType("io.verglas.manual").build())
        .maxAttempts(1).build();
  }

  private static List<Map<String, Object>> logRows(TableClient logs) {
    TableSnapshot snapshot = logs.snapshot();
    return snapshot == null ? List.of() : logs.rows(snapshot.snapshotId(), null).rows().stream()
        .sorted(java.util.Comparator.comparing(r -> (Integer) r.get("seq"))).toList();
  }

  @Test
  void commitRunsTheSubscribedWorkerOnceAcrossSubscriberRestarts() throws Exception {
    FeedPositions positions = new FeedPositions(database);
    Subscription commits = new Subscription("recorder", "orders-commits", CatalogEvent.TYPE,
        null, "shop.orders");
    URI events = local.stack().endpoints().eventsUri();
    String token = local.stack().endpoints().adminToken();
    long snapshot;
    long position;
    try (EventSubscriber subscriber = EventSubscriber.builder("it", events, dispatcher::submit,
        positions).token(token).subscription(commits).build().start()) {
      snapshot = client.table("shop.orders").commit(
          List.of(Map.of("trigger", "seed", "id", 1L, "v", "x")), "orders-1");
      await(() -> rows("shop.seen").size() == 1, "the subscribed worker ran");
      assertThat(subscriber.enqueued()).isEqualTo(1);
      position = subscriber.position();
    }
    String eventId = CatalogEvent.eventId(ordersUuid, snapshot);
    assertThat(rows("shop.seen")).containsExactly(eventId + "/0/shop.orders");
    assertThat(awaitDone("recorder/orders-commits/" + eventId).attempts()).isEqualTo(1);
    assertThat(positions.load("it")).hasValueSatisfying(p -> assertThat(p).isGreaterThan(1));

    try (EventSubscriber resumed = EventSubscriber.builder("it", events, dispatcher::submit,
        positions).token(token).subscription(commits).build().start()) {
      assertThat(resumed.position()).as("resumes after the commit").isGreaterThan(1);
      try (Connection c = database.open(); Statement st = c.createStatement()) {
        st.execute("delete from verglas_feed_positions"); // as if no position had been saved
      }
      try (EventSubscriber fromStart = EventSubscriber.builder("it", events, dispatcher::submit,
          positions).token(token).subscription(commits).build().start()) {
        await(() -> fromStart.position() >= position, "the restarted subscriber re-read the feed");
        assertThat(fromStart.enqueued()).as("the commit's job exists already").isZero();
      }
      assertThat(resumed.enqueued()).isZero();
    }
    assertThat(jobCount("recorder")).isEqualTo(1);
    assertThat(rows("shop.seen")).hasSize(1);
  }

  private static Deployment deployment(String name, Class<?> worker, String out) {
    return new Deployment(name, null, worker.getName(), Map.of(), Map.of(),
        DataGrants.of(List.of(), List.of(out)), Map.of("out", out), Duration.ofSeconds(60));
  }

  private static HttpResponse<String> post(String deployment, String body, String... headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(
        webhooks.uri().resolve(WebhookEndpoint.PREFIX + deployment))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The table's rows as sorted "trigger/id/v" strings. */
  private static List<String> rows(String table) {
    TableClient t = client.table(table);
    TableSnapshot snapshot = t.snapshot();
    return snapshot == null ? List.of() : t.rows(snapshot.snapshotId(), null).rows().stream()
        .map(r -> r.get("trigger") + "/" + r.get("id") + "/" + r.get("v")).sorted().toList();
  }

  private static JobStatus awaitDone(String identity) throws Exception {
    await(() -> jobs.status(identity).map(s -> s.state() == JobState.DONE
        || s.state() == JobState.DEAD).orElse(false), "job " + identity + " settled");
    JobStatus status = jobs.status(identity).orElseThrow();
    assertThat(status.state()).as("job %s", status).isEqualTo(JobState.DONE);
    return status;
  }

  private static long jobCount(String deployment) throws Exception {
    try (Connection c = database.open(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(
            "select count(*) from verglas_jobs where deployment = '" + deployment + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting until " + what);
      }
      Thread.sleep(200);
    }
  }
}
