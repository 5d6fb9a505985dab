package io.verglas.maintenance.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.EventPublisher;
import io.verglas.events.HttpEventPublisher;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaintenanceConfigTest {
  @Test
  void feedTokenAndOutboxAreParsed(@TempDir Path dir) {
    MaintenanceConfig config = MaintenanceConfig.fromArgs("--catalog.type=jdbc",
        "--feed.uri=http://127.0.0.1:1/events", "--feed.token=s3cret",
        "--feed.outbox-dir=" + dir, "--feed.outbox-max-bytes=1048576");

    assertThat(config.feedToken()).isEqualTo("s3cret");
    assertThat(config.feedOutboxDir()).isEqualTo(dir);
    assertThat(config.feedOutboxMaxBytes()).isEqualTo(1L << 20);
    assertThat(config.toString()).doesNotContain("s3cret");
    try (EventPublisher publisher = config.newEventPublisher()) {
      assertThat(publisher).isInstanceOf(HttpEventPublisher.class);
      assertThat(publisher.toString()).doesNotContain("s3cret").contains("credential=bearer");
      assertThat(((HttpEventPublisher) publisher).outboxDirectory()).startsWith(dir);
    }
  }

  @Test
  void theDefaultOutboxIsUnderTheTempDirectoryAndNamedAfterTheCatalog() {
    MaintenanceConfig config = MaintenanceConfig.fromArgs("--catalog.type=jdbc",
        "--catalog.uri=jdbc:sqlite:/data/a.db", "--feed.uri=http://127.0.0.1:1/events");

    assertThat(config.feedToken()).isNull();
    assertThat(config.feedOutboxDir())
        .startsWithRaw(Path.of(System.getProperty("java.io.tmpdir"), "verglas-outbox"));
    assertThat(config.feedOutboxDir().getFileName().toString())
        .matches("maintenance-[0-9a-f]{8}");
  }

  @Test
  void rejectsBadFeedSettingsWithoutShowingTheToken() {
    assertThatThrownBy(() -> MaintenanceConfig.fromArgs("--feed.token=two words"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid feed token: it must be printable ASCII without spaces (value not"
            + " shown)");
    assertThatThrownBy(() -> MaintenanceConfig.fromArgs("--feed.outbox-max-bytes=10"))
        .hasMessage("Invalid outbox max bytes: 10 (at least 65536)");
  }
}
