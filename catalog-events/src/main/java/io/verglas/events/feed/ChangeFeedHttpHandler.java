package io.verglas.events.feed;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.verglas.events.FeedEventParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * The change feed's HTTP face on the JDK's {@code com.sun.net.httpserver} (in-process servers;
 * the local stack serves the feed from its Netty admin server with the same
 * {@link FeedQuery}, {@link FeedAccess} and {@link FeedStreamer}).
 *
 * <ul>
 *   <li>{@code GET /events?from=N[&table=ns.t][&namespace=ns][&follow=true]}: CloudEvents as
 *       JSON lines ({@code application/x-ndjson}), oldest first, from sequence N (default 1).
 *       With {@code follow=true} the response stays open and streams new events as they are
 *       committed, with an empty heartbeat line while idle so dead subscribers are noticed.
 *       Resume after a disconnect with {@code from = last feedsequence + 1}.</li>
 *   <li>{@code POST /events}: publish one structured CloudEvent (a snapshot commit or a
 *       table maintenance event) of at most the feed's max event size; answers it numbered.</li>
 * </ul>
 * Credentials are checked before anything is read ({@link FeedAccess}: 401 without a token,
 * 403 with a wrong one; a scoped token reads only the events of its tables), a body over the max event size is refused with 413 from its
 * Content-Length or while it is read, and bad input gets a 400; every refusal has a JSON
 * {@code {"error": ...}} body. Followers hold a thread each, so their number is bounded; beyond
 * it the answer is 503.
 */
public final class ChangeFeedHttpHandler implements HttpHandler {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ChangeFeed feed;
  private final FeedAccess access;
  private final Semaphore followers;
  private final FeedStreamer streamer;

  /** A handler without credentials: anyone may publish and read. Only for in-process tests. */
  public ChangeFeedHttpHandler(ChangeFeed feed, int maxFollowers, Duration heartbeat) {
    this(feed, FeedAccess.open(), maxFollowers, heartbeat);
  }

  public ChangeFeedHttpHandler(ChangeFeed feed, FeedAccess access, int maxFollowers,
      Duration heartbeat) {
    this.feed = feed;
    this.access = access;
    this.followers = new Semaphore(maxFollowers);
    this.streamer = new FeedStreamer(feed, heartbeat);
  }

  /** Ends open follow streams (at server shutdown). */
  public void close() {
    streamer.close();
  }

  /** How much of an oversized body is read and dropped before the 413 (see {@link #body}). */
  static final long DRAIN_BYTES = 1L << 20;

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    // every answer, errors included, is written before the exchange closes
    try (exchange) {
      switch (exchange.getRequestMethod()) {
        case "GET" -> guarded(exchange, FeedAccess.Need.EVENTS, "read events");
        case "POST" -> guarded(exchange, FeedAccess.Need.PUBLISH, "publish events");
        default -> error(exchange, 405, "Cannot " + exchange.getRequestMethod()
            + " /events: use GET or POST");
      }
    }
  }

  private void guarded(HttpExchange exchange, FeedAccess.Need need, String action)
      throws IOException {
    FeedAccess.Decision decision =
        access.check(need, exchange.getRequestHeaders().getFirst("Authorization"));
    if (!decision.allowed()) {
      if (decision == FeedAccess.Decision.MISSING) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      }
      error(exchange, decision.status(), "Cannot " + action + ": " + decision.reason());
      return;
    }
    try {
      if (need == FeedAccess.Need.EVENTS) {
        get(exchange, decision);
      } else {
        post(exchange);
      }
    } catch (IllegalArgumentException e) {
      error(exchange, 400, e.getMessage());
    }
  }

  private void post(HttpExchange exchange) throws IOException {
    byte[] body = body(exchange);
    if (body == null) {
      error(exchange, 413, "Cannot publish events: the body is over the max event size of "
          + feed.bounds().maxEventBytes() + " bytes");
      return;
    }
    String numbered = FeedEventParser.toJson(
        feed.appendJson(new String(body, StandardCharsets.UTF_8)));
    answer(exchange, 200, "application/json", numbered);
  }

  /**
   * The request body, or null when it is over the max event size (by its length or as read).
   * An oversized body is read on and dropped up to {@link #DRAIN_BYTES}, so the client, still
   * sending, is not cut off by a reset before it reads the 413; past that the connection closes.
   */
  private byte[] body(HttpExchange exchange) throws IOException {
    int max = feed.bounds().maxEventBytes();
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    try (InputStream in = exchange.getRequestBody()) {
      if (length != null && contentLength(length) > max) {
        drain(in);
        return null;
      }
      byte[] body = in.readNBytes(max + 1);
      if (body.length > max) {
        drain(in);
        return null;
      }
      return body;
    }
  }

  private static void drain(InputStream in) throws IOException {
    byte[] sink = new byte[8192];
    long left = DRAIN_BYTES;
    int read;
    while (left > 0 && (read = in.read(sink, 0, (int) Math.min(sink.length, left))) > 0) {
      left -= read;
    }
  }

  private static long contentLength(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Cannot publish events: invalid Content-Length: " + value);
    }
  }

  private void get(HttpExchange exchange, FeedAccess.Decision decision) throws IOException {
    FeedQuery parsed = FeedQuery.parse(exchange.getRequestURI().getRawQuery());
    FeedQuery query = decision.scope().map(parsed::within).orElse(parsed);
    if (query.follow() && !followers.tryAcquire()) {
      error(exchange, 503, "Cannot follow events: too many followers; retry later");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "application/x-ndjson");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      streamer.stream(query, out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (query.follow()) {
        followers.release();
      }
    }
  }

  private static void error(HttpExchange exchange, int status, String message)
      throws IOException {
    ObjectNode body = JSON.createObjectNode().put("error", message);
    answer(exchange, status, "application/json", JSON.writeValueAsString(body));
  }

  private static void answer(HttpExchange exchange, int status, String type, String text)
      throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }
}
