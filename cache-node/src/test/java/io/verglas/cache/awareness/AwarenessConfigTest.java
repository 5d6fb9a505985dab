package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AwarenessConfigTest {
  private static final URI FEED = URI.create("http://127.0.0.1:9092/events");

  @Test
  void defaults() {
    AwarenessConfig config = AwarenessConfig.builder().feedUri(FEED).build();
    assertThat(config.feedToken()).isNull();
    assertThat(config.stateDirectory()).isNull();
    assertThat(config.warmBytesPerSecond()).isEqualTo(AwarenessConfig.DEFAULT_WARM_BYTES_PER_SECOND);
    assertThat(config.warmConcurrency()).isEqualTo(AwarenessConfig.DEFAULT_WARM_CONCURRENCY);
    assertThat(config.tableBudgetBytes()).isEqualTo(AwarenessConfig.DEFAULT_TABLE_BUDGET_BYTES);
    assertThat(config.immutableKeys()).isEqualTo(AwarenessConfig.DEFAULT_IMMUTABLE_KEYS);
    assertThat(config.feedFiltered()).isFalse();
    assertThat(AwarenessConfig.builder().feedUri(URI.create(FEED + "?namespace=db")).build()
        .feedFiltered()).isTrue();
  }

  @Test
  void aFeedUriOrACatalogIsRequiredAndTheFeedMustBeHttp() {
    assertThatThrownBy(() -> AwarenessConfig.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build awareness settings without a feed URI or a catalog to poll");
    assertThatThrownBy(() -> AwarenessConfig.builder().feedUri(URI.create("file:///tmp/feed")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid feed URI: file:///tmp/feed");
  }

  @Test
  void badValuesAreRefusedByName() {
    assertThatThrownBy(() -> AwarenessConfig.builder().warmBytesPerSecond(0))
        .hasMessage("Invalid warm bytes per second: 0 (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().warmConcurrency(-1))
        .hasMessage("Invalid warm concurrency: -1 (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().tableBudgetBytes(0))
        .hasMessage("Invalid table budget: 0 (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().immutableKeys(-5))
        .hasMessage("Invalid immutable key limit: -5 (must be >= 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder()
        .reconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessage("Invalid reconnect backoff: maximum PT1S < minimum PT2S");
    assertThatThrownBy(() -> AwarenessConfig.builder().feedIdleTimeout(Duration.ZERO))
        .hasMessage("Invalid feed idle timeout: PT0S (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().feedToken("has space"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void heatAndPrefetchSettings() {
    AwarenessConfig defaults = AwarenessConfig.builder().feedUri(FEED).build();
    assertThat(defaults.prefetch()).isTrue();
    assertThat(defaults.prefetchBytesPerCommit()).isEqualTo(AwarenessConfig.DEFAULT_PREFETCH_BYTES_PER_COMMIT);
    assertThat(defaults.heatHalfLife()).isEqualTo(AwarenessConfig.DEFAULT_HEAT_HALF_LIFE);
    assertThat(defaults.heatSampleBuffer()).isEqualTo(AwarenessConfig.DEFAULT_HEAT_SAMPLE_BUFFER);
    assertThat(defaults.indexMaxChunks()).isEqualTo(AwarenessConfig.DEFAULT_INDEX_MAX_CHUNKS);
    assertThat(defaults.heatSaveInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.heatSaveMaxEntries()).isEqualTo(10_000);
    assertThat(defaults.tableBudgetRetry()).isEqualTo(Duration.ofMinutes(10));
    assertThat(AwarenessConfig.builder().feedUri(FEED).tableBudgetRetry(Duration.ofSeconds(1)).build()
        .tableBudgetRetry()).isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> AwarenessConfig.builder().tableBudgetRetry(Duration.ofSeconds(-1)))
        .hasMessage("Invalid table budget retry: PT-1S (must be > 0)");
    AwarenessConfig tuned = AwarenessConfig.builder().feedUri(FEED).heatSaveInterval(Duration.ofSeconds(5))
        .heatSaveMaxEntries(50).build();
    assertThat(tuned.heatSaveInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(tuned.heatSaveMaxEntries()).isEqualTo(50);
    assertThatThrownBy(() -> AwarenessConfig.builder().heatSaveInterval(Duration.ZERO))
        .hasMessage("Invalid heat save interval: PT0S (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().heatSaveMaxEntries(-1))
        .hasMessage("Invalid heat save size: -1 (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().prefetchBytesPerCommit(0))
        .hasMessage("Invalid prefetch bytes per commit: 0 (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().prefetchMinHeat(Double.NaN))
        .hasMessage("Invalid prefetch minimum heat: NaN (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().heatHalfLife(Duration.ZERO))
        .hasMessage("Invalid heat half-life: PT0S (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().heatMaxEntries(0))
        .hasMessage("Invalid heat ledger size: 0 (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().heatSampleBuffer(1 << 25))
        .hasMessageContaining("Invalid heat sample buffer: 33554432");
    assertThatThrownBy(() -> AwarenessConfig.builder().indexMaxChunks(-1))
        .hasMessage("Invalid index chunk limit: -1 (must be > 0)");
    AwarenessConfig.Builder once = AwarenessConfig.builder().prefetch(false);
    assertThatThrownBy(() -> once.prefetch(true)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void eachSettingOnceAndTheTokenNeverShown() {
    AwarenessConfig.Builder builder = AwarenessConfig.builder().feedUri(FEED).feedToken("s3cr3t");
    assertThatThrownBy(() -> builder.feedToken("other"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("feedToken was already set");
    assertThatThrownBy(() -> builder.feedUri(FEED)).isInstanceOf(IllegalStateException.class);
    assertThat(builder.build().toString()).doesNotContain("s3cr3t").contains("feedToken=(set)");
  }

  @Test
  void aCatalogAloneRunsAwarenessByPolling() {
    AwarenessConfig config = AwarenessConfig.builder().catalog(() -> null).build();
    assertThat(config.feedUri()).isNull();
    assertThat(config.feedFiltered()).isFalse();
    assertThat(config.catalog()).isNotNull();
    assertThat(config.pollInterval()).isEqualTo(AwarenessConfig.DEFAULT_POLL_INTERVAL);
    assertThat(config.pollTablesPerSecond()).isEqualTo(AwarenessConfig.DEFAULT_POLL_TABLES_PER_SECOND);
    assertThat(config.toString()).contains("catalog=(set)");
    assertThat(AwarenessConfig.builder().feedUri(FEED).build().catalog()).isNull();
    assertThatThrownBy(() -> AwarenessConfig.builder().pollInterval(Duration.ZERO))
        .hasMessage("Invalid poll interval: PT0S (must be > 0)");
    assertThatThrownBy(() -> AwarenessConfig.builder().pollTablesPerSecond(0))
        .hasMessage("Invalid poll tables per second: 0 (must be > 0)");
    AwarenessConfig.Builder once = AwarenessConfig.builder().catalog(() -> null);
    assertThatThrownBy(() -> once.catalog(() -> null)).isInstanceOf(IllegalStateException.class);
  }
}
