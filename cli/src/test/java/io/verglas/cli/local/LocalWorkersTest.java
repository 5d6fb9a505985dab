package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a reachable scheduler database the stack runs no workers and says why. */
class LocalWorkersTest {
  @TempDir Path dir;

  @Test
  void anUnreachableDatabaseTurnsWorkersOffWithTheReason() {
    String url = "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=2";
    try (LocalWorkers workers = LocalWorkers.start(
        LocalConfig.builder().dataDir(dir).workersJdbcUrl(url).build(), null)) {
      assertThat(workers.status()).startsWith("off: cannot reach the scheduler's PostgreSQL at "
          + url + " (").endsWith("); deploy, trigger and runs need it");
      assertThat(workers.database()).isEmpty();
    }
  }

  @Test
  void noneTurnsWorkersOff() {
    try (LocalWorkers workers = LocalWorkers.start(
        LocalConfig.builder().dataDir(dir).workersJdbcUrl("none").build(), null)) {
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
