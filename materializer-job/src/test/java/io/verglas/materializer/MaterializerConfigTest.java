package io.verglas.materializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.EventPublisher;
import io.verglas.events.HttpEventPublisher;
import io.verglas.materializer.delta.IntervalStaging;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaterializerConfigTest {
  static final String[] ARGS = {
      "--catalog.type=jdbc", "--catalog.uri", "jdbc:sqlite:/tmp/c.db",
      "--s3.endpoint=http://127.0.0.1:9000", "--s3.region=eu-west-1",
      "--s3.access-key=ak", "--s3.secret-key=sk", "--s3.bucket=lake",
      "--wal.prefix=log", "--checkpoint-interval=750ms", "--checkpoint-dir=file:///tmp/cp",
      "--parallelism=3", "--discovery-interval=1s", "--writer.buffer-bytes=1024",
      "--writer.interval-staging=never", "--writer.row-id-wait=5s", "--committer.parallelism=4"};

  @Test
  void parsesArguments() {
    MaterializerConfig config = MaterializerConfig.fromArgs(ARGS);
    assertThat(config.catalogProperties()).containsEntry("type", "jdbc")
        .containsEntry("uri", "jdbc:sqlite:/tmp/c.db");
    assertThat(config.objectStore().endpoint()).isEqualTo(URI.create("http://127.0.0.1:9000"));
    assertThat(config.objectStore().region()).isEqualTo("eu-west-1");
    assertThat(config.objectStore().bucket()).isEqualTo("lake");
    assertThat(config.walLayout().prefix()).isEqualTo("log/");
    assertThat(config.checkpointInterval()).isEqualTo(Duration.ofMillis(750));
    assertThat(config.checkpointDir()).isEqualTo("file:///tmp/cp");
    assertThat(config.parallelism()).isEqualTo(3);
    assertThat(config.discoveryInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.writerBufferBytes()).isEqualTo(1024);
    assertThat(config.intervalStaging()).isEqualTo(IntervalStaging.NEVER);
    assertThat(config.writerRowIdWait()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.committerParallelism()).isEqualTo(4);
    assertThat(config.newEventPublisher()).isNotNull();
  }

  @Test
  void defaults() {
    MaterializerConfig config = MaterializerConfig.fromArgs("--catalog.type=jdbc",
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b");
    assertThat(config.checkpointInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.discoveryInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.walLayout().prefix()).isEqualTo("_wal/");
    assertThat(config.parallelism()).isEqualTo(-1);
    assertThat(config.checkpointDir()).isNull();
    assertThat(config.objectStore().region()).isEqualTo("us-east-1");
    assertThat(config.intervalStaging()).isEqualTo(IntervalStaging.AUTO);
    assertThat(config.writerRowIdWait()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.committerParallelism()).isEqualTo(1);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--nope=1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("Unknown argument: --nope");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--catalog.type=jdbc"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--s3.endpoint");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--parallelism=x"))
        .hasMessage("Invalid --parallelism: 'x' is not a number");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--checkpoint-interval=soon"))
        .hasMessageContaining("Invalid --checkpoint-interval: 'soon'");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--parallelism=0"))
        .hasMessage("Invalid parallelism: 0");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--committer.parallelism=0"))
        .hasMessage("Invalid committer parallelism: 0 (need >= 1)");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs(
        "--writer.index-cache-entries=" + (MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_MAX + 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 to 67108864");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--writer.interval-staging=often"))
        .hasMessageContaining("Invalid interval staging 'often'");
    assertThatThrownBy(() -> MaterializerConfig.builder().writerRowIdWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid writer row id wait: PT-1S (need >= 0)");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--writer.row-id-wait=later"))
        .hasMessageContaining("Invalid --writer.row-id-wait: 'later'");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--wal.prefix=/x"))
        .hasMessageContaining("Invalid WAL prefix");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--catalog.a=1", "--catalog.a=2"))
        .isInstanceOf(IllegalStateException.class).hasMessage("Catalog property a was already set");
  }

  @Test
  void eachSettingOnce() {
    MaterializerConfig.Builder builder = MaterializerConfig.builder().parallelism(2);
    assertThatThrownBy(() -> builder.parallelism(3)).isInstanceOf(IllegalStateException.class)
        .hasMessage("Parallelism was already set to 2");
    assertThatThrownBy(() -> MaterializerConfig.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build materializer config: no object store");
  }

  @Test
  void eventsUriMakesAnHttpPublisher() {
    MaterializerConfig config = MaterializerConfig.fromArgs("--catalog.type=jdbc",
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b",
        "--events.uri=http://127.0.0.1:1/events");
    try (EventPublisher publisher = config.newEventPublisher()) {
      assertThat(publisher).isInstanceOf(HttpEventPublisher.class);
    }
  }

  @Test
  void eventsTokenAndOutboxAreParsedAndTheTokenIsNeverShown(@TempDir Path dir) throws Exception {
    MaterializerConfig config = MaterializerConfig.fromArgs("--catalog.type=jdbc",
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b",
        "--events.uri=http://127.0.0.1:1/events", "--events.token=s3cret-token",
        "--events.outbox-dir=" + dir, "--events.outbox-max-bytes=1048576");

    assertThat(config.hasEventsToken()).isTrue();
    assertThat(config.eventsOutboxDir()).isEqualTo(dir);
    assertThat(config.eventsOutboxMaxBytes()).isEqualTo(1L << 20);
    assertThat(config.toString()).doesNotContain("s3cret").contains("eventsCredential=bearer",
        "eventsOutbox=" + dir);
    MaterializerConfig copy = InstantiationUtil.clone(config);
    assertThat(copy.hasEventsToken()).isTrue();
    try (EventPublisher publisher = copy.newEventPublisher()) {
      assertThat(publisher.toString()).doesNotContain("s3cret").contains("credential=bearer");
      assertThat(((HttpEventPublisher) publisher).outboxDirectory()).startsWith(dir);
    }
  }

  @Test
  void theDefaultOutboxIsUnderTheTempDirectoryAndNamedAfterTheCatalog() {
    Path first = withCatalogUri("jdbc:sqlite:/data/a.db").eventsOutboxDir();
    Path second = withCatalogUri("jdbc:sqlite:/data/b.db").eventsOutboxDir();

    assertThat(first)
        .startsWithRaw(Path.of(System.getProperty("java.io.tmpdir"), "verglas-outbox"));
    assertThat(first.getFileName().toString()).matches("materializer-[0-9a-f]{8}");
    assertThat(withCatalogUri("jdbc:sqlite:/data/a.db").eventsOutboxDir()).isEqualTo(first);
    assertThat(second).isNotEqualTo(first);
    assertThat(withCatalogUri("jdbc:sqlite:/data/a.db").hasEventsToken()).isFalse();
  }

  private static MaterializerConfig withCatalogUri(String uri) {
    return MaterializerConfig.fromArgs("--catalog.type=jdbc", "--catalog.uri=" + uri,
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b",
        "--events.uri=http://127.0.0.1:1/events");
  }

  @Test
  void rejectsBadEventsSettingsWithoutShowingTheToken() {
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--events.token=two words"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid feed token: it must be printable ASCII without spaces (value not"
            + " shown)");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--events.outbox-max-bytes=10"))
        .hasMessage("Invalid outbox max bytes: 10 (at least 65536)");
    MaterializerConfig.Builder builder = MaterializerConfig.builder().eventsToken("s3cret");
    assertThatThrownBy(() -> builder.eventsToken("other"))
        .isInstanceOf(IllegalStateException.class).hasMessage("The events token was already set");
    assertThatThrownBy(() -> MaterializerConfig.fromArgs("--catalog.type=jdbc",
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b",
        "--events.token=s3cret"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build materializer config: an events token or outbox directory"
            + " without an events URI");
  }

  @Test
  void isSerializable() throws Exception {
    MaterializerConfig config = MaterializerConfig.fromArgs(ARGS);
    MaterializerConfig copy = InstantiationUtil.clone(config);
    assertThat(copy.toString()).isEqualTo(config.toString());
  }

  @Test
  void flinkConfigurationBringsRocksDbOnlyWithACheckpointDir() {
    Configuration withDir = MaterializerJob.configuration(MaterializerConfig.fromArgs(ARGS));
    assertThat(withDir.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
    assertThat(withDir.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
    assertThat(withDir.get(CheckpointingOptions.CHECKPOINTING_INTERVAL))
        .isEqualTo(Duration.ofMillis(750));
    assertThat(withDir.get(CheckpointingOptions.ENABLE_UNALIGNED)).isFalse();
    Configuration cluster = MaterializerJob.configuration(MaterializerConfig.fromArgs(
        "--catalog.type=jdbc", "--s3.endpoint=http://h", "--s3.access-key=a",
        "--s3.secret-key=s", "--s3.bucket=b"));
    assertThat(cluster.contains(StateBackendOptions.STATE_BACKEND)).isFalse();
  }
}
