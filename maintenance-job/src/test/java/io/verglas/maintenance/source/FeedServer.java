package io.verglas.maintenance.source;

import com.sun.net.httpserver.HttpServer;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real HTTP server on 127.0.0.1 that answers {@code GET /feed?from=N} with the feed lines from
 * sequence N on, as JSON lines, the way the change feed does. It keeps each request's
 * Authorization header and can demand a bearer token (401 otherwise). Register with
 * {@code @RegisterExtension}.
 */
final class FeedServer implements BeforeEachCallback, AfterEachCallback {
  static final String FUTURE_TYPE = "io.verglas.table.branch-created";
  private final ConcurrentSkipListMap<Long, String> lines = new ConcurrentSkipListMap<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private volatile String requiredToken;
  private HttpServer server;

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/feed", exchange -> {
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      authorizations.add(authorization == null ? "" : authorization);
      if (requiredToken != null && !("Bearer " + requiredToken).equals(authorization)) {
        exchange.sendResponseHeaders(401, -1);
        exchange.close();
        return;
      }
      long from = Long.parseLong(exchange.getRequestURI().getQuery().substring("from=".length()));
      StringBuilder body = new StringBuilder();
      for (String line : lines.tailMap(from).values()) {
        body.append(line).append('\n');
      }
      byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, bytes.length == 0 ? -1 : bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    server.stop(0);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/feed");
  }

  /** Requests without {@code Authorization: Bearer <token>} get 401 from now on. */
  void requireToken(String token) {
    requiredToken = token;
  }

  /** Each request's Authorization header, in order ("" when absent). */
  List<String> authorizations() {
    return List.copyOf(authorizations);
  }

  /** Adds a commit of {@code table} (an append that may need work) at {@code sequence}. */
  void commit(String table, long sequence) {
    FeedEvent event = new CatalogEvent("u:" + sequence, "verglas/materializer", Instant.EPOCH,
        List.of(table.split("\\.")), "u-" + table, sequence, null, "append", sequence, 0,
        Map.of("added-data-files", "1"), null, sequence);
    lines.put(sequence, FeedEventParser.toJson(event));
  }

  /** Adds an event of a type this version does not know at {@code sequence}. */
  void futureEvent(long sequence) {
    lines.put(sequence, "{\"specversion\":\"1.0\",\"id\":\"e-" + sequence + "\","
        + "\"source\":\"verglas://test\",\"type\":\"" + FUTURE_TYPE + "\",\"subject\":\"ns.t\","
        + "\"time\":\"2026-11-29T12:00:00Z\",\"feedsequence\":" + sequence
        + ",\"data\":{\"table\":[\"ns\",\"t\"]}}");
  }
}
