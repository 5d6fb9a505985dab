package io.verglas.cli.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ReadinessTest {
  @Test
  void readyOnlyWhenEveryCheckPassesInTime() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Map<String, Readiness.Check> checks = new LinkedHashMap<>();
    checks.put("origin", () -> { });
    checks.put("catalog", () -> { throw new IllegalStateException("database is locked"); });
    checks.put("wal", never::await);
    try (Readiness readiness = new Readiness(checks, Duration.ofMillis(300))) {
      long t0 = System.nanoTime();
      Readiness.Answer answer = readiness.evaluate();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
      assertThat(answer.ready()).isFalse();
      JsonNode json = new ObjectMapper().readTree(answer.json());
      assertThat(json.at("/checks/origin").asText()).isEqualTo("ok");
      assertThat(json.at("/checks/catalog").asText()).isEqualTo("failed: database is locked");
      assertThat(json.at("/checks/wal").asText()).isEqualTo("timed out");
    }
  }

  @Test
  void readyWhenAllPass() {
    try (Readiness readiness = new Readiness(Map.of("origin", () -> { }, "wal", () -> { }), Duration.ofSeconds(1))) {
      Readiness.Answer answer = readiness.evaluate();
      assertThat(answer.ready()).isTrue();
      assertThat(answer.json()).contains("\"ready\":true");
    }
  }
}
