package io.verglas.bench.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for listeners that must be named before they bind (cache cluster gossip seeds). */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /** A port on 127.0.0.1 free now (it may be taken again before it is bound). */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free loopback port", e);
    }
  }
}
