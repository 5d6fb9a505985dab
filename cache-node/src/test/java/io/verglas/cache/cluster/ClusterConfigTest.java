package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder is the validation boundary: bad values name themselves, settings are set once. */
class ClusterConfigTest {
  @Test
  void defaultsAndSeeds() {
    ClusterConfig config = ClusterConfig.builder().nodeId("a").gossipPort(7800)
        .secret("0123456789abcdef").seed("10.0.0.1:7800").seed("[::1]:7801").build();
    assertThat(config.bindHost()).isEqualTo("127.0.0.1");
    assertThat(config.peerPort()).isZero();
    assertThat(config.peerTimeout()).isEqualTo(ClusterConfig.DEFAULT_PEER_TIMEOUT);
    assertThat(config.failureTimeout()).isEqualTo(ClusterConfig.DEFAULT_FAILURE_TIMEOUT);
    assertThat(config.warmupInterval()).isEqualTo(ClusterConfig.DEFAULT_WARMUP_INTERVAL);
    assertThat(config.seeds()).containsExactly(InetSocketAddress.createUnresolved("10.0.0.1", 7800),
        InetSocketAddress.createUnresolved("::1", 7801));
    assertThat(config.toString()).doesNotContain("0123456789abcdef");
  }

  @Test
  void badValuesAreRefusedWithTheValue() {
    ClusterConfig.Builder b = ClusterConfig.builder();
    assertThatThrownBy(() -> b.seed("10.0.0.1")).hasMessage("Invalid seed: 10.0.0.1 (host:port)");
    assertThatThrownBy(() -> b.seed("h:0")).hasMessageContaining("Invalid seed port: 0");
    assertThatThrownBy(() -> b.secret("short")).hasMessageContaining("shorter than 16");
    assertThatThrownBy(() -> b.gossipPort(0)).hasMessageContaining("Invalid gossip port: 0");
    assertThatThrownBy(() -> b.peerTimeout(Duration.ZERO)).hasMessageContaining("Invalid peer timeout");
    assertThatThrownBy(() -> b.failureTimeout(Duration.ofMillis(10))).hasMessageContaining("at least 100 ms");
    assertThatThrownBy(() -> b.capacityBytes(0)).hasMessageContaining("Invalid capacity: 0");
    assertThatThrownBy(() -> b.warmupInterval(Duration.ofSeconds(-1))).hasMessageContaining("Invalid warmup interval");
  }

  @Test
  void settingsAreSetOnceAndRequiredOnesChecked() {
    ClusterConfig.Builder b = ClusterConfig.builder().nodeId("a");
    assertThatThrownBy(() -> b.nodeId("b")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot build a cluster config without");
  }
}
