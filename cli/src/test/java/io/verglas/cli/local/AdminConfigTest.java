package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.feed.FeedBounds;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class AdminConfigTest {
  @Test
  void readsAreTokenProtectedByDefaultAndEveryBoundHasADefault() {
    AdminConfig config = AdminConfig.defaults();
    assertThat(config.publicReads()).isFalse();
    assertThat(config.requestTimeout()).isEqualTo(AdminConfig.REQUEST_TIMEOUT_DEFAULT);
    assertThat(config.feedBounds()).isEqualTo(FeedBounds.defaults());
  }

  @Test
  void appliesTheConfigFileKeys() {
    Properties props = new Properties();
    props.setProperty("local.admin-public", "true");
    props.setProperty("local.admin-request-timeout-ms", "1500");
    props.setProperty("local.admin-max-connections", "64");
    props.setProperty("local.admin-max-requests", "3");
    props.setProperty("local.admin-max-followers", "5");
    props.setProperty("local.events-retained", "1000");
    props.setProperty("local.events-retained-bytes", "4194304");
    props.setProperty("local.events-max-event-bytes", "65536");

    AdminConfig config = AdminConfig.builder().apply(props).build();

    assertThat(config.publicReads()).isTrue();
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.maxConnections()).isEqualTo(64);
    assertThat(config.maxRequests()).isEqualTo(3);
    assertThat(config.maxFollowers()).isEqualTo(5);
    assertThat(config.feedBounds()).isEqualTo(new FeedBounds(1000, 4L << 20, 64 * 1024));
  }

  @Test
  void badValuesAreRefusedNamingTheKeyAndTheValue() {
    Properties props = new Properties();
    props.setProperty("local.admin-public", "yes");
    assertThatThrownBy(() -> AdminConfig.builder().apply(props))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid local.admin-public: yes (true or false)");
    assertThatThrownBy(() -> AdminConfig.builder().maxEventBytes(2 << 20).retainedBytes(1 << 20)
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid retained bytes: 1048576");
  }
}
