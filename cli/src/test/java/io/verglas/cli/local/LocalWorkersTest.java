package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.verglas.workers.webhook.WebhookSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a reachable scheduler database the stack runs no workers and says why (webhooks: 503). */
class LocalWorkersTest {
  @TempDir Path dir;

  @Test
  void anUnreachableDatabaseTurnsWorkersOffWithTheReason() {
    String url = "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=2";
    AdminWebhooks webhooks = new AdminWebhooks(WebhookSettings.builder().build());
    try (LocalWorkers workers = LocalWorkers.start(
        LocalConfig.builder().dataDir(dir).workersJdbcUrl(url).build(), null, null, webhooks,
        () -> 1)) {
      assertThat(workers.status()).startsWith("off: cannot reach the scheduler's PostgreSQL at "
          + url + " (").endsWith("); deploy, trigger and runs need it");
      assertThat(workers.database()).isEmpty();
    }
    FullHttpResponse refused = webhooks.check(new DefaultHttpRequest(HttpVersion.HTTP_1_1,
        HttpMethod.POST, "/v1/webhooks/hourly"), "/v1/webhooks/hourly").orElseThrow();
    assertThat(refused.status().code()).isEqualTo(503);
    assertThat(refused.content().toString(StandardCharsets.UTF_8))
        .contains("Cannot accept webhook: workers are off: cannot reach the scheduler's PostgreSQL");
    refused.release();
  }

  @Test
  void noneTurnsWorkersOff() {
    try (LocalWorkers workers = LocalWorkers.start(
        LocalConfig.builder().dataDir(dir).workersJdbcUrl("none").build(), null, null,
        new AdminWebhooks(WebhookSettings.builder().build()), () -> 1)) {
      assertThat(workers.status()).isEqualTo("off (local.workers-jdbc-url is none)");
    }
  }

  @Test
  void onlyPostgresqlUrlsAreAccepted() {
    assertThatThrownBy(() -> LocalConfig.builder().workersJdbcUrl("jdbc:sqlite:x"))
        .hasMessage("Cannot use workers database jdbc:sqlite:x: only jdbc:postgresql: URLs (or none)");
    assertThatThrownBy(() -> LocalConfig.builder().workersSchema("Bad-Schema"))
        .hasMessageStartingWith("Cannot use workers schema 'Bad-Schema'");
  }
}
