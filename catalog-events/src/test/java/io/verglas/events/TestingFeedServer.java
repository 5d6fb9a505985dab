package io.verglas.events;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.verglas.net.LoopbackPorts;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in change feed on 127.0.0.1 for publisher tests: {@code POST /events} takes one
 * CloudEvent and keeps its id, the way the feed does (it keeps the first copy of an id). It can
 * be down (not started, or stopped, on a port kept for it), slow (each request waits up to 30 s
 * until {@link #recover}), and can demand a bearer token.
 */
public final class TestingFeedServer implements AutoCloseable {
  private static final long SLOW_MILLIS = 30_000;

  static {
    // The JDK server writes an answer's head and body separately; with Nagle's algorithm on,
    // the body waits for the client's delayed ACK, about 40 ms per request.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }
  private final int port;
  private final List<String> received = new ArrayList<>();
  private final List<String> authorizations = new ArrayList<>();
  private volatile String requiredToken;
  private volatile CountDownLatch slow;
  private HttpServer server;
  private ExecutorService executor;

  private TestingFeedServer(int port) {
    this.port = port;
  }

  /** A server on a free port, not started: the feed is down until {@link #start}. */
  public static TestingFeedServer onFreePort() {
    return new TestingFeedServer(LoopbackPorts.free("the testing feed"));
  }

  public synchronized TestingFeedServer start() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the testing feed on port " + port, e);
    }
    executor = Executors.newCachedThreadPool();
    server.setExecutor(executor);
    server.createContext("/events", this::handle);
    server.start();
    return this;
  }

  public synchronized void stop() {
    if (server != null) {
      server.stop(0);
      executor.shutdownNow();
      server = null;
    }
  }

  @Override
  public void close() {
    recover();
    stop();
  }

  public URI uri() {
    return URI.create("http://127.0.0.1:" + port + "/events");
  }

  /** From now on every request waits 30 s (or until {@link #recover}) before it is answered. */
  public void slowDown() {
    slow = new CountDownLatch(1);
  }

  /** Ends slowness: waiting requests and new ones are answered at once. */
  public void recover() {
    CountDownLatch latch = slow;
    slow = null;
    if (latch != null) {
      latch.countDown();
    }
  }

  /** Requests without {@code Authorization: Bearer <token>} get 401; null accepts any. */
  public void requireToken(String token) {
    requiredToken = token;
  }

  /** Ids accepted, in order, repeats included (a feed would keep the first of each). */
  public synchronized List<String> received() {
    return List.copyOf(received);
  }

  /** What the feed would hold: each id once, in the order first accepted. */
  public synchronized List<String> distinct() {
    return List.copyOf(new LinkedHashSet<>(received));
  }

  /** The Authorization headers of every request, in order ("" when absent). */
  public synchronized List<String> authorizations() {
    return List.copyOf(authorizations);
  }

  /** Waits until the feed holds {@code count} distinct ids; returns them. */
  public List<String> awaitDistinct(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (distinct().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return distinct();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      synchronized (this) {
        authorizations.add(authorization == null ? "" : authorization);
      }
      CountDownLatch latch = slow;
      if (latch != null && !latch.await(SLOW_MILLIS, TimeUnit.MILLISECONDS)) {
        answer(exchange, 503, "{\"error\":\"slow\"}");
        return;
      }
      String token = requiredToken;
      if (token != null && !("Bearer " + token).equals(authorization)) {
        answer(exchange, 401, "{\"error\":\"Unauthorized\"}");
        return;
      }
      FeedEvent event = FeedEventParser.fromJson(body);
      synchronized (this) {
        received.add(event.id());
      }
      answer(exchange, 200, FeedEventParser.toJson(event));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
