package io.verglas.workers.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.workers.harness.SecretSource;
import io.verglas.workers.harness.SecretUnavailableException;
import io.verglas.workers.trigger.CatchUp;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeploymentRecordTest {
  private static final Path EXAMPLE =
      Path.of("").toAbsolutePath().getParent().resolve("docs/examples/workers/hourly.deployment.json");

  @Test
  void docsExampleParsesWithItsJarBesideIt() throws Exception {
    DeploymentRecord record =
        DeploymentRecordParser.fromJson(Files.readString(EXAMPLE), EXAMPLE.getParent());
    assertThat(record.name()).isEqualTo("hourly");
    assertThat(record.jar()).isEqualTo(EXAMPLE.getParent().resolve("hourly.jar").toUri());
    assertThat(record.workerClass()).isEqualTo("example.HourlyAggregate");
    assertThat(record.cronTriggers()).singleElement().satisfies(c -> {
      assertThat(c.expression()).isEqualTo("0 * * * *");
      assertThat(c.startDate()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
      assertThat(c.catchUp()).isEqualTo(CatchUp.NONE);
    });
    assertThat(record.reads()).containsExactly("shop.raw_events");
    assertThat(record.outputs()).containsExactly(Map.entry("hourly", "shop.hourly"));
    assertThat(record.timeout()).isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void everyFieldRoundTrips() {
    DeploymentRecord record = full().build();
    String json = DeploymentRecordParser.toJson(record);
    DeploymentRecord back = DeploymentRecordParser.fromJson(json);
    assertThat(back).isEqualTo(record);
    assertThat(DeploymentRecordParser.toJson(back)).isEqualTo(json);
    assertThat(json).contains("\"token\":\"env:AGG_TOKEN\"")
        .contains("{\"type\":\"webhook\",\"name\":\"hook\",\"secret\":\"env:AGG_WEBHOOK_SECRET\"}")
        .contains("\"eventType\":\"org.apache.iceberg.snapshot.committed\"");
  }

  @Test
  void queueGrantsMakeAVersion2RecordAndVersion1RecordsGrantNoQueue() {
    DeploymentRecord record = full().publish("hourly-done").consume("orders").build();
    String json = DeploymentRecordParser.toJson(record);
    assertThat(json).startsWith("{\"version\":2,")
        .contains("\"publish\":[\"hourly-done\"],\"consume\":[\"orders\"]");
    DeploymentRecord back = DeploymentRecordParser.fromJson(json);
    assertThat(back).isEqualTo(record);
    assertThat(back.grants().queues().publish()).containsExactly("hourly-done");
    assertThat(back.grants().queues().consume()).containsExactly("orders");

    String v1 = DeploymentRecordParser.toJson(full().build());
    assertThat(v1).startsWith("{\"version\":1,").doesNotContain("publish");
    assertThat(DeploymentRecordParser.fromJson(v1).grants().queues().isEmpty()).isTrue();
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(
        v1.replace("\"write\":[", "\"publish\":[\"q\"],\"write\":[")))
        .hasMessageStartingWith("Cannot read deployment: unknown key 'publish' in grants of a version 1 record");
    assertThatThrownBy(() -> full().consume("bad queue"))
        .hasMessageStartingWith("Cannot define deployment agg: Invalid queue name: 'bad queue'");
  }

  @Test
  void aWriteGrantIncludesReading() {
    DeploymentRecord record = full().read("shop.out").build();
    assertThat(record.reads()).containsExactly("shop.raw");
    assertThat(record.writes()).containsExactly("shop.out");
  }

  @Test
  void invalidRecordsFailWithTheirReason() {
    assertThatThrownBy(() -> DeploymentRecord.builder("Hourly!"))
        .hasMessageStartingWith("Cannot use deployment name 'Hourly!'");
    assertThatThrownBy(() -> full().secret("password", "hunter2"))
        .hasMessageContaining("secret 'password' must be a reference");
    assertThatThrownBy(() -> full().output("other", "shop.raw").build())
        .hasMessage("Cannot define deployment agg: output 'other' names table shop.raw, which is "
            + "not granted for writes");
    assertThatThrownBy(() -> full().kind(DeploymentRecord.Kind.CONTAINER).build())
        .hasMessage("Cannot define deployment agg: kind container is not built (only worker)");
    assertThatThrownBy(() -> full().placement(DeploymentRecord.Placement.CLOUD).build())
        .hasMessageContaining("placement cloud is not built");
    assertThatThrownBy(() -> full().code(URI.create("s3://b/agg.jar"), "x.Agg"))
        .hasMessageContaining("is not an absolute file: URI");
    assertThatThrownBy(() -> full().trigger(new TriggerSpec.Webhook("hook")))
        .hasMessage("Cannot define deployment agg: trigger 'hook' is named twice");
    assertThatThrownBy(() -> new TriggerSpec.Webhook("signed", "whsec_abc"))
        .hasMessageStartingWith("Cannot use webhook trigger signed: secret must be a reference");
    assertThatThrownBy(() -> full().timeout(Duration.ZERO)).hasMessageContaining("timeout PT0S");
    assertThatThrownBy(() -> new TriggerSpec.Cron("c", "0 * * * *", ZoneId.of("UTC"), null, CatchUp.NONE))
        .hasMessage("Cannot use cron trigger c: no startDate");
    assertThatThrownBy(() -> new TriggerSpec.Cron("c", "every hour", ZoneId.of("UTC"), Instant.EPOCH, CatchUp.NONE))
        .hasMessageStartingWith("Cannot parse cron expression 'every hour'");
  }

  @Test
  void invalidFilesFailWithTheirReason() {
    String good = DeploymentRecordParser.toJson(full().build());
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(good.replace("\"grants\"", "\"grant\"")))
        .hasMessageStartingWith("Cannot read deployment: unknown key 'grant' in deployment");
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(good.replace("\"version\":1", "\"version\":3")))
        .hasMessage("Cannot read deployment: unknown version 3 (this reader knows 1 and 2)");
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(good.replace("\"type\":\"webhook\"", "\"type\":\"mail\"")))
        .hasMessage("Cannot read trigger hook: unknown type 'mail' (cron, webhook or event)");
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(good.replace("PT1M30S", "90s")))
        .hasMessageContaining("timeout '90s' is not an ISO-8601 duration");
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(good.replace("\"catchUp\":\"parallel\"", "\"catchUp\":\"all\"")))
        .hasMessageContaining("catchUp 'all' is not one of [sequential, parallel, none]");
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson("{\"name\":\"x\",\"code\":{\"jar\":\"x.jar\",\"class\":\"X\"}}"))
        .hasMessageContaining("jar x.jar is relative");
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson(good.replace("\"env:AGG_WEBHOOK_SECRET\"", "\"s3cret\"")))
        .hasMessageContaining("webhook trigger hook: secret must be a reference");
    assertThat(DeploymentRecordParser.fromJson(good.replace(",\"secret\":\"env:AGG_WEBHOOK_SECRET\"", ""))
        .triggers()).contains(new TriggerSpec.Webhook("hook"));
    assertThatThrownBy(() -> DeploymentRecordParser.fromJson("[1]"))
        .hasMessage("Cannot read deployment: not a JSON object");
  }

  @Test
  void secretReferencesResolveWhereTheDeploymentRuns(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("key"), "s3cret\n");
    DeploymentRecord record = full().secret("file", "file:" + file).build();
    assertThat(SecretReferences.resolve(record, Map.of("AGG_TOKEN", "t0k")))
        .containsExactlyInAnyOrderEntriesOf(Map.of("token", "t0k", "file", "s3cret"));
    assertThatThrownBy(() -> SecretReferences.resolve(record, Map.of()))
        .isInstanceOf(SecretUnavailableException.class)
        .hasMessage("Cannot resolve secret 'token' (env:AGG_TOKEN) of deployment agg: "
            + "environment variable AGG_TOKEN is not set where the deployment runs");
    assertThat(DeploymentScheduler.runtime(record, Map.of("AGG_TOKEN", "t0k")).toString())
        .doesNotContain("t0k");

    SecretSource atRunStart = DeploymentScheduler.target(record, Map.of("AGG_TOKEN", "t0k"))
        .secrets();
    Files.writeString(file, "rotated\n");
    assertThat(atRunStart.read()).as("read as the run starts").containsEntry("file", "rotated");
    Files.delete(file);
    assertThatThrownBy(atRunStart::read).isInstanceOf(SecretUnavailableException.class)
        .hasMessage("Cannot resolve secret 'file' (file:" + file + ") of deployment agg: "
            + "cannot read " + file + " (NoSuchFileException)");
  }

  @Test
  void aWebhookSecretIsReadThroughItsReferenceAndCachedBriefly(@TempDir Path dir)
      throws Exception {
    Path file = Files.writeString(dir.resolve("hook"), "first\n");
    long[] nanos = {0};
    CachedSecret secret = new CachedSecret("agg", "hook", "file:" + file, Map.of(),
        Duration.ofSeconds(5), () -> nanos[0]);
    assertThat(secret.current()).contains("first");
    Files.writeString(file, "second");
    nanos[0] = Duration.ofSeconds(4).toNanos();
    assertThat(secret.current()).as("cached").contains("first");
    nanos[0] = Duration.ofSeconds(5).toNanos();
    assertThat(secret.current()).as("rotated, seen after the cache bound").contains("second");
    Files.delete(file);
    nanos[0] = Duration.ofSeconds(10).toNanos();
    assertThat(secret.current()).as("unresolvable: the admin token only").isEmpty();
    assertThat(secret.toString()).doesNotContain("second").contains("file:" + file);
  }

  @Test
  void manualRunsHaveDeterministicIdentities() {
    DeploymentRecord record = full().build();
    Instant now = Instant.parse("2026-12-03T08:00:00Z");
    assertThat(ManualTriggers.run(record, "retry-1", now).identity()).isEqualTo("agg/manual/retry-1");
    var tick = ManualTriggers.interval(record, "hourly", Instant.parse("2026-12-01T10:00:00Z"));
    assertThat(tick.identity()).isEqualTo("agg/manual/hourly/2026-12-01T10:00:00Z");
    assertThat(tick.event().getExtension("intervalend")).isEqualTo("2026-12-01T11:00:00Z");
    assertThatThrownBy(() -> ManualTriggers.interval(record, "hourly", Instant.parse("2026-12-01T10:30:00Z")))
        .hasMessage("Cannot trigger agg: 2026-12-01T10:30:00Z is not a fire time of '0 * * * *' in UTC");
    assertThatThrownBy(() -> ManualTriggers.run(record, "a b", now)).hasMessageContaining("id 'a b'");
  }

  private static DeploymentRecord.Builder full() {
    return DeploymentRecord.builder("agg")
        .code(URI.create("file:/opt/workers/agg.jar"), "example.Agg")
        .trigger(new TriggerSpec.Cron("hourly", "0 * * * *", ZoneId.of("UTC"),
            Instant.parse("2026-12-01T00:00:00Z"), CatchUp.PARALLEL))
        .trigger(new TriggerSpec.Webhook("hook", "env:AGG_WEBHOOK_SECRET"))
        .trigger(new TriggerSpec.Event("commits", "org.apache.iceberg.snapshot.committed", null, "shop.raw"))
        .config("source", "shop.raw").secret("token", "env:AGG_TOKEN")
        .read("shop.raw").write("shop.out").output("out", "shop.out")
        .timeout(Duration.ofSeconds(90)).maxConcurrency(2);
  }
}
