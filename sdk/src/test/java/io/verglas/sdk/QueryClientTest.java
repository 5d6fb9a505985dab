package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.net.URI;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/** What a query to a node that is not there says. */
class QueryClientTest {
  @Test
  void aRefusedConnectionIsNamed() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    QueryClient queries = QueryClient.of(URI.create("http://127.0.0.1:" + port), "token");
    assertThatThrownBy(() -> queries.lookup(TableIdentifier.of("ns", "t"), List.of(1)))
        .isInstanceOf(QueryFailedException.class)
        .hasMessage("Cannot reach http://127.0.0.1:" + port + "/v1/query: connection refused "
            + "(503 Unavailable)");
  }
}
