package io.verglas.cache.awareness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.verglas.events.CatalogEvent;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.ChangeFeedHttpHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real change feed ({@link ChangeFeed} behind {@link ChangeFeedHttpHandler}) on the JDK HTTP
 * server at 127.0.0.1, which can be stopped and started again on the same port, and which
 * requires a bearer token when given one.
 */
final class TestingFeedServer implements AutoCloseable {
  static final Duration HEARTBEAT = Duration.ofMillis(200);

  final ChangeFeed feed;
  private final String token;
  private final int port;
  private HttpServer server;
  private ChangeFeedHttpHandler handler;
  private ExecutorService executor;

  TestingFeedServer(Path dir, String token) {
    this(dir, token, 10_000);
  }

  /** A feed that retains only the newest {@code retained} events. */
  TestingFeedServer(Path dir, String token, int retained) {
    this.feed = new ChangeFeed(dir.resolve("feed.jsonl"), retained);
    this.token = token;
    this.port = start(0);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + port + "/events");
  }

  CatalogEvent publish(CatalogEvent event) {
    return feed.append(event);
  }

  /** Closes the listener and every open follow stream. */
  synchronized void stop() {
    server.stop(0);
    handler.close();
    executor.shutdownNow();
    server = null;
  }

  synchronized void restart() {
    start(port);
  }

  private synchronized int start(int onPort) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    handler = new ChangeFeedHttpHandler(feed, 8, HEARTBEAT);
    server.createContext("/events", authorized(handler));
    executor = Executors.newFixedThreadPool(8);
    server.setExecutor(executor);
    server.start();
    return server.getAddress().getPort();
  }

  private HttpHandler authorized(HttpHandler inner) {
    return exchange -> {
      if (token != null && !("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        reject(exchange);
        return;
      }
      inner.handle(exchange);
    };
  }

  static void reject(HttpExchange exchange) throws IOException {
    byte[] body = "{\"error\":\"Unauthorized\"}".getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(401, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      stop();
    }
    feed.close();
  }
}
