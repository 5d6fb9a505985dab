package io.verglas.events.feed;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * HTTP face of the change feed.
 *
 * <ul>
 *   <li>{@code GET /events?from=N[&table=ns.t][&namespace=ns][&follow=true]}: CloudEvents as
 *       JSON lines ({@code application/x-ndjson}), oldest first, from sequence N (default 1).
 *       With {@code follow=true} the response stays open and streams new events as they are
 *       committed, with an empty heartbeat line while idle so dead subscribers are noticed.
 *       Resume after a disconnect with {@code from = last feedsequence + 1}.</li>
 *   <li>{@code POST /events}: publish one structured CloudEvent (a snapshot commit or a
 *       table maintenance event); answers it numbered.</li>
 * </ul>
 * Followers hold a thread each, so their number is bounded; beyond it the answer is 503.
 */
public final class ChangeFeedHttpHandler implements HttpHandler {
  private static final int PAGE = 1_000;
  private final ChangeFeed feed;
  private final Semaphore followers;
  private final Duration heartbeat;
  private volatile boolean closed;

  public ChangeFeedHttpHandler(ChangeFeed feed, int maxFollowers, Duration heartbeat) {
    this.feed = feed;
    this.followers = new Semaphore(maxFollowers);
    this.heartbeat = heartbeat;
  }

  /** Ends open follow streams (at server shutdown). */
  public void close() {
    closed = true;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      switch (exchange.getRequestMethod()) {
        case "GET" -> get(exchange);
        case "POST" -> post(exchange);
        default -> answer(exchange, 405, "{\"error\":\"Method not allowed: use GET or POST\"}");
      }
    } catch (IllegalArgumentException e) {
      answer(exchange, 400, "{\"error\":" + quote(e.getMessage()) + "}");
    }
  }

  private void post(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    FeedEvent numbered = feed.append(FeedEventParser.fromJson(body));
    answer(exchange, 200, FeedEventParser.toJson(numbered));
  }

  private void get(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    long from = parseSequence(query.getOrDefault("from", "1"));
    EventFilter filter = new EventFilter(query.get("table"), query.get("namespace"));
    boolean follow = Boolean.parseBoolean(query.getOrDefault("follow", "false"));
    if (follow && !followers.tryAcquire()) {
      answer(exchange, 503, "{\"error\":\"Too many followers\"}");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "application/x-ndjson");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      stream(out, from, filter, follow);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (follow) {
        followers.release();
      }
    }
  }

  private void stream(OutputStream out, long from, EventFilter filter, boolean follow)
      throws IOException, InterruptedException {
    long next = from;
    while (!closed) {
      List<FeedEvent> events = feed.read(next, filter, PAGE);
      for (FeedEvent event : events) {
        out.write((FeedEventParser.toJson(event) + "\n").getBytes(StandardCharsets.UTF_8));
        next = event.feedSequence() + 1;
      }
      out.flush();
      if (events.size() == PAGE) {
        continue;
      }
      next = Math.max(next, feed.lastSequence() + 1);
      if (!follow) {
        return;
      }
      if (!feed.await(next, heartbeat.toMillis(), TimeUnit.MILLISECONDS)) {
        out.write('\n');
        out.flush();
      }
    }
  }

  private static long parseSequence(String value) {
    try {
      long sequence = Long.parseLong(value);
      if (sequence < 1) {
        throw new IllegalArgumentException("Invalid from: " + value + " (sequences start at 1)");
      }
      return sequence;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid from: " + value);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw == null) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.put(URLDecoder.decode(key, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return params;
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  private static String quote(String text) {
    return "\"" + String.valueOf(text).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
