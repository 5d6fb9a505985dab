package io.verglas.cache.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for gossip listeners (which must be known before they bind: seeds name them). */
public final class TestingPorts {
  private TestingPorts() {}

  public static int[] free(int count) {
    int[] ports = new int[count];
    ServerSocket[] held = new ServerSocket[count];
    try {
      for (int i = 0; i < count; i++) {
        held[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ports[i] = held[i].getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (ServerSocket s : held) {
        try {
          if (s != null) {
            s.close();
          }
        } catch (IOException ignored) {
          // released anyway
        }
      }
    }
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
