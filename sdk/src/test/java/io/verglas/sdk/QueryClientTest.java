package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/** What a query says when no node answers, and when one answers with an error. */
class QueryClientTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("ns", "t");

  @Test
  void aRefusedConnectionSaysItCouldNotConnect() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    QueryFailedException e = catchThrowableOfType(QueryFailedException.class,
        () -> client(port).lookup(TABLE, List.of(1)));
    assertThat(e).hasMessage("Cannot connect to 127.0.0.1:" + port + " (http://127.0.0.1:" + port
        + "/v1/query): connection refused");
    assertThat(e.answered()).isFalse();
    assertThat(e.status()).isZero();
  }

  @Test
  void aConnectionClosedWithoutAnAnswerSaysSo() throws Exception {
    try (ServerSocket server = new ServerSocket(0)) {
      Thread closer = new Thread(() -> {
        try (Socket accepted = server.accept()) {
          accepted.getInputStream().read(); // the request begins, then the node goes away
        } catch (Exception ignored) {
          // the test's assertion tells
        }
      });
      closer.start();
      int port = server.getLocalPort();
      QueryFailedException e = catchThrowableOfType(QueryFailedException.class,
          () -> client(port).lookup(TABLE, List.of(1)));
      closer.join();
      assertThat(e.getMessage()).startsWith("Cannot get an answer from 127.0.0.1:" + port + " (");
      assertThat(e.answered()).isFalse();
    }
  }

  @Test
  void aRealUnavailableAnswerKeepsItsStatus() throws Exception {
    HttpServer server = answering(503,
        "{\"error\":{\"type\":\"Overloaded\",\"message\":\"Too many queries\"}}");
    try {
      QueryFailedException e = catchThrowableOfType(QueryFailedException.class,
          () -> client(server.getAddress().getPort()).lookup(TABLE, List.of(1)));
      assertThat(e).hasMessage("Too many queries (503 Overloaded)");
      assertThat(e.answered()).isTrue();
      assertThat(e.status()).isEqualTo(503);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void anAnswerThatIsNotJsonKeepsItsStatus() throws Exception {
    HttpServer server = answering(502, "<html>Bad Gateway</html>");
    try {
      int port = server.getAddress().getPort();
      assertThatThrownBy(() -> client(port).lookup(TABLE, List.of(1)))
          .isInstanceOfSatisfying(QueryFailedException.class,
              e -> assertThat(e.status()).isEqualTo(502))
          .hasMessageStartingWith("Cannot read the answer of http://127.0.0.1:" + port + "/v1/query: ")
          .hasMessageEndingWith("(502 BadAnswer)");
    } finally {
      server.stop(0);
    }
  }

  private static QueryClient client(int port) {
    return QueryClient.of(URI.create("http://127.0.0.1:" + port), "token");
  }

  private static HttpServer answering(int status, String body) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/query", exchange -> {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    return server;
  }
}
