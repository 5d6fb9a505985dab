package io.verglas.cli.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.ChangeFeedHttpHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The local stack's admin endpoint: {@code /health}, {@code /stats} (cache node statistics as
 * JSON), {@code /events} (the change feed) and {@code /maintenance?table=ns.t} (a table's
 * maintenance status as JSON).
 */
final class AdminServer implements AutoCloseable {
  private static final int MAX_FOLLOWERS = 32;
  private final HttpServer server;
  private final ExecutorService executor;
  private final ChangeFeedHttpHandler feedHandler;

  AdminServer(String host, int port, ChangeFeed feed, Supplier<String> healthJson,
      Supplier<String> statsJson, Function<String, String> maintenanceJson) {
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 64);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot bind the admin endpoint to " + host + ":" + port, e);
    }
    // followers hold a thread each; the pool is sized for them plus ordinary requests
    executor = Executors.newFixedThreadPool(MAX_FOLLOWERS + 4, daemonThreads());
    feedHandler = new ChangeFeedHttpHandler(feed, MAX_FOLLOWERS, Duration.ofSeconds(15));
    server.createContext("/events", feedHandler);
    server.createContext("/health", exchange -> json(exchange, healthJson.get()));
    server.createContext("/stats", exchange -> json(exchange, statsJson.get()));
    server.createContext("/maintenance", new MaintenanceStatusHandler(maintenanceJson));
    server.setExecutor(executor);
    server.start();
  }

  URI uri() {
    InetSocketAddress address = server.getAddress();
    return URI.create("http://" + address.getHostString() + ":" + address.getPort());
  }

  static void json(HttpExchange exchange, String body) throws IOException {
    try (exchange) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    return runnable -> {
      Thread thread = new Thread(runnable, "verglas-admin");
      thread.setDaemon(true);
      return thread;
    };
  }

  @Override
  public void close() {
    feedHandler.close();
    server.stop(0);
    executor.shutdownNow();
  }
}
