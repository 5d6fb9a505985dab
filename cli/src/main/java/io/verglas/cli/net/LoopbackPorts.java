package io.verglas.cli.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports the launcher picks for servers it starts on 127.0.0.1 before they bind. */
public final class LoopbackPorts {
  public static final String HOST = "127.0.0.1";

  private LoopbackPorts() {}

  /** A port free on 127.0.0.1 now; {@code purpose} names what it is for in the error. */
  public static int free(String purpose) {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port for " + purpose + ": "
          + e.getMessage(), e);
    }
  }
}
