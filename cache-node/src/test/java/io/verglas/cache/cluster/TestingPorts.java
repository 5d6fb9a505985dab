package io.verglas.cache.cluster;

import io.verglas.net.LoopbackPorts;

/**
 * Free loopback ports for gossip listeners (which must be known before they bind: seeds name them),
 * below the ephemeral range, each with FD_SOCK2's port above it free too (see {@link LoopbackPorts}).
 */
public final class TestingPorts {
  private TestingPorts() {}

  public static int[] free(int count) {
    int[] ports = new int[count];
    for (int i = 0; i < count; i++) {
      ports[i] = LoopbackPorts.free("a gossip listener", ClusterConfig.FAILURE_DETECTION_PORT_OFFSET);
    }
    return ports;
  }

  /** A config for node {@code i} of a cluster whose gossip listeners use {@code ports}. */
  public static ClusterConfig.Builder config(int i, int[] ports) {
    return config(i, ports, "a-test-cluster-secret");
  }

  public static ClusterConfig.Builder config(int i, int[] ports, String secret) {
    ClusterConfig.Builder b = ClusterConfig.builder()
        .nodeId("node-" + i)
        .gossipPort(ports[i])
        .secret(secret)
        .failureTimeout(java.time.Duration.ofMillis(1500));
    for (int port : ports) {
      b.seed("127.0.0.1:" + port);
    }
    return b;
  }
}
