package io.verglas.cache.origin.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store that drops a kept-alive connection in the middle of a request (as s3proxy does after
 * some error responses): the origin reconnects once instead of reporting the store unavailable.
 */
class S3OriginReconnectTest {
  @Test
  void aRequestOnAConnectionTheStoreDroppedIsSentAgainOnANewOne() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread store = new Thread(() -> serve(server, requests), "dropping-store");
      store.setDaemon(true);
      store.start();
      try (S3Origin origin = S3Origin.builder()
          .endpoint(URI.create("http://127.0.0.1:" + server.getLocalPort()))
          .credentials("key", "secret").build()) {
        assertThat(origin.bucketExists("bkt").join()).isTrue();
        assertThat(origin.bucketExists("bkt").join()).isTrue(); // dropped once, then answered
      }
    }
    assertThat(requests.get()).isEqualTo(3);
  }

  /** Answers HEAD requests with 200, keeping connections alive, but drops the second request. */
  private static void serve(ServerSocket server, AtomicInteger requests) {
    while (!server.isClosed()) {
      try (Socket socket = server.accept()) {
        BufferedReader in = new BufferedReader(
            new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
        OutputStream out = socket.getOutputStream();
        String line;
        while ((line = in.readLine()) != null) {
          if (!line.isEmpty()) {
            continue; // request line and headers; HEAD has no body
          }
          if (requests.incrementAndGet() == 2) {
            break; // drop the connection without an answer
          }
          out.write(("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nx-amz-request-id: t\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
        }
      } catch (IOException e) {
        return; // closed by the test
      }
    }
  }
}
