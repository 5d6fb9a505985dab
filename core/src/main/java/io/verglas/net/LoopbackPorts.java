package io.verglas.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers started on 127.0.0.1 whose port must be known before they bind (a child
 * process told its port, a cluster whose seeds name each other's gossip ports).
 *
 * <p>The ports come from below the kernel's ephemeral range, never from it. A port the kernel
 * hands out for a listener and that is then released may go to any outgoing connection (a peer's
 * failure-detection probe, an HTTP client) before the server binds it, which then fails with
 * "address in use". Ports below that range are bound only on request. Each port is handed out once
 * per JVM and checked free when handed out.
 */
public final class LoopbackPorts {
  public static final String HOST = "127.0.0.1";

  private static final int FIRST = 20_000;
  private static final int ATTEMPTS = 1_000;
  private static final int IANA_EPHEMERAL_LOW = 49_152;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private LoopbackPorts() {}

  /** A port free on 127.0.0.1 now; {@code purpose} names what it is for in the error. */
  public static int free(String purpose) {
    return free(purpose, 0);
  }

  /**
   * A port free on 127.0.0.1 now whose companion port {@code port + offset} is free too (JGroups'
   * FD_SOCK2 listens at the transport's port plus an offset); an offset of 0 means none.
   */
  public static int free(String purpose, int offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("Cannot find a port for " + purpose + ": negative offset " + offset);
    }
    int limit = ephemeralLow() - offset;
    if (limit <= FIRST + ATTEMPTS) {
      return kernelChosen(purpose); // an ephemeral range reaching down this far leaves no other choice
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = random.nextInt(FIRST, limit);
      if (HANDED_OUT.add(port) && bindable(port) && (offset == 0 || bindable(port + offset))) {
        return port;
      }
    }
    throw new IllegalStateException("Cannot find a free port for " + purpose + " on " + HOST + " in ["
        + FIRST + ", " + limit + ") after " + ATTEMPTS + " attempts");
  }

  private static int kernelChosen(String purpose) {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port for " + purpose + ": " + e.getMessage(), e);
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first port of the kernel's ephemeral range (Linux), or IANA's where it cannot be read. */
  static int ephemeralLow() {
    // Read as a stream: some kernels report a size for this file that Files.readString trusts
    // and stops at (seen: "3" of "32768 60999").
    try (BufferedReader reader = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      return Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return IANA_EPHEMERAL_LOW;
    }
  }
}
