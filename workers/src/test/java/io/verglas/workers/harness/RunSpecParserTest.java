package io.verglas.workers.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.QueueGrants;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunSpecParserTest {
  @Test
  void specRoundTripsThroughJson() {
    Deployment deployment = new Deployment("hourly", Path.of("/jars/w.jar"), "com.example.Hourly",
        Map.of("window", "1h"), Map.of("api-key", "s3cret"),
        DataGrants.of(List.of("shop.raw"), List.of("shop.hourly"))
            .withQueues(QueueGrants.of(List.of("done"), List.of("orders"))),
        Map.of("out", "shop.hourly"), Duration.ofSeconds(30));
    RunSpec spec = new RunSpec(deployment, "hourly/cron/1", CloudEventBuilder.v1().withId("e1")
        .withSource(URI.create("/s")).withType("t").build(), "hourly/cron/1#3", 2,
        new WorkerEndpoints(URI.create("grpc+tcp://127.0.0.1:1"), "flight-token", URI.create("http://127.0.0.1:2"),
            "query-token", null, null, Duration.ofSeconds(5)).withQueues(new ObjectStoreEndpoint(
                URI.create("http://127.0.0.1:3"), "us-east-1", "ak", "s3-secret-key", "warehouse")));
    RunSpec read = RunSpecParser.fromJson(RunSpecParser.toJson(spec));
    assertThat(read).usingRecursiveComparison().isEqualTo(spec);
    assertThat(read.commitKey(1)).isEqualTo("hourly/hourly/cron/1/c1");
    assertThat(spec.toString()).as("no secret, no token").doesNotContain("s3cret")
        .doesNotContain("flight-token").doesNotContain("query-token").doesNotContain("s3-secret-key");

    ObjectStoreEndpoint session = new ObjectStoreEndpoint(URI.create("http://127.0.0.1:3"),
        "us-east-1", "VGS0123", "derived-secret", "warehouse", "vgs1.claims.mac");
    RunSpec scoped = spec.withEndpoints(spec.endpoints().withQueues(session));
    assertThat(RunSpecParser.fromJson(RunSpecParser.toJson(scoped)).endpoints().queues())
        .as("session credentials of the queues round trip").isEqualTo(session);
    assertThat(read.endpoints().queues().sessionToken()).isNull();
    assertThat(scoped.toString()).doesNotContain("derived-secret").doesNotContain("vgs1.claims");
  }

  @Test
  void unknownVersionIsRefused() {
    assertThatThrownBy(() -> RunSpecParser.fromJson("{\"version\": 2}"))
        .hasMessage("Unknown run spec version: 2");
  }

  @Test
  void eventsRoundTripThroughTheLineProtocol() {
    RunEvent commit = RunEvent.commit(Instant.parse("2026-01-01T00:00:00Z"), "shop.t", 4, 99L, "k/c0");
    assertThat(RunEventCodec.fromLine(RunEventCodec.toLine(commit))).isEqualTo(commit);
    assertThat(RunEventCodec.fromLine("a line of the JVM's own")).isNull();
  }

  @Test
  void outputsMustBeGrantedForWrites() {
    assertThatThrownBy(() -> new Deployment("d", null, "C", Map.of(), Map.of(),
        DataGrants.of(List.of("shop.hourly"), List.of()), Map.of("out", "shop.hourly"), Duration.ofSeconds(1)))
        .hasMessage("Cannot define deployment d: output 'out' names table shop.hourly, which is not granted for writes");
  }
}
