package io.verglas.cache.awareness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A change feed on the JDK HTTP server at 127.0.0.1 that serves lines as given, for what the
 * real {@code ChangeFeed} cannot hold: events of types a newer producer might publish, and
 * lines that are not events at all. Line {@code i} (from 0) has sequence {@code i + 1}; a GET
 * with {@code from=N} gets lines from sequence N, with {@code follow=true} it stays open and
 * gets later lines (and heartbeats). It requires {@code Authorization: Bearer <token>}.
 */
final class TestingScriptedFeed implements AutoCloseable {
  private final String token;
  private final List<String> lines = new ArrayList<>();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private volatile boolean closed;

  TestingScriptedFeed(String token) {
    this.token = token;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/events", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
  }

  synchronized void add(String line) {
    lines.add(line);
    notifyAll();
  }

  private void handle(HttpExchange exchange) throws IOException {
    if (!("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
      TestingFeedServer.reject(exchange);
      return;
    }
    String query = exchange.getRequestURI().getQuery();
    int from = Integer.parseInt(query.replaceAll(".*from=(\\d+).*", "$1"));
    boolean follow = query.contains("follow=true");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      int next = from - 1;
      while (!closed) {
        for (String line : linesFrom(next)) {
          out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
          next++;
        }
        out.flush();
        if (!follow) {
          return;
        }
        if (!awaitMore(next)) {
          out.write('\n');
          out.flush();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized List<String> linesFrom(int index) {
    return index >= lines.size() ? List.of() : new ArrayList<>(lines.subList(index, lines.size()));
  }

  private synchronized boolean awaitMore(int index) throws InterruptedException {
    if (lines.size() <= index) {
      wait(200);
    }
    return lines.size() > index;
  }

  @Override
  public void close() {
    closed = true;
    server.stop(0);
    executor.shutdownNow();
  }
}
