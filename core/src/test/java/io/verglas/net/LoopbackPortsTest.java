package io.verglas.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void portsAreDistinctBindableAndBelowTheEphemeralRange() throws Exception {
    int ephemeralLow = LoopbackPorts.ephemeralLow();
    assertThat(ephemeralLow).isGreaterThan(20_000); // Linux defaults to 32768, IANA to 49152
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int port = LoopbackPorts.free("a test", 100);
      assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
      assertThat(port + 100).isLessThan(ephemeralLow);
      try (ServerSocket a = bound(port); ServerSocket b = bound(port + 100)) {
        assertThat(a.getLocalPort()).isEqualTo(port);
        assertThat(b.getLocalPort()).isEqualTo(port + 100);
      }
    }
  }

  @Test
  void aNegativeOffsetIsRefused() {
    assertThatThrownBy(() -> LoopbackPorts.free("the gossip listener", -1))
        .hasMessage("Cannot find a port for the gossip listener: negative offset -1");
  }

  private static ServerSocket bound(int port) throws Exception {
    ServerSocket socket = new ServerSocket();
    socket.bind(new InetSocketAddress(InetAddress.getByName(LoopbackPorts.HOST), port));
    return socket;
  }
}
