package io.verglas.cache.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free loopback ports for gossip listeners (which must be known before they bind: seeds name them).
 *
 * <p>The ports come from below the kernel's ephemeral range, never from it: a port the kernel
 * handed out for a listener and then released may be given to any outgoing connection (a peer's
 * FD_SOCK2 probe, an HTTP client) before the node binds it, and the node then fails with "No
 * available port to bind to". Ports below that range are only ever bound on request. Each port is
 * handed out once per JVM and checked free (with FD_SOCK2's ports above it) when handed out.
 */
public final class TestingPorts {
  private static final int FIRST = 20_000;
  private static final int FD_SOCK_OFFSET = 100;
  private static final int FD_SOCK_RANGE = 50;
  private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private TestingPorts() {}

  public static int[] free(int count) {
    int[] ports = new int[count];
    for (int i = 0; i < count; i++) {
      ports[i] = next();
    }
    return ports;
  }

  private static int next() {
    int limit = ephemeralLow() - FD_SOCK_OFFSET - FD_SOCK_RANGE;
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int port = random.nextInt(FIRST, limit);
      if (HANDED_OUT.add(port) && bindable(port) && bindable(port + FD_SOCK_OFFSET)) {
        return port;
      }
    }
    throw new IllegalStateException("Cannot find a free loopback port in [" + FIRST + ", " + limit + ")");
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first port of the kernel's ephemeral range (Linux), or the IANA one where it cannot be read. */
  private static int ephemeralLow() {
    try {
      String range = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
      int low = Integer.parseInt(range.trim().split("\\s+")[0]);
      return Math.max(low, FIRST + 1_000 + FD_SOCK_OFFSET + FD_SOCK_RANGE);
    } catch (IOException | RuntimeException e) {
      return 49_152;
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
