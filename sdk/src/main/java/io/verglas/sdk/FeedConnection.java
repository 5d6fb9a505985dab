package io.verglas.sdk;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A follow connection to the change feed ({@code GET /events?...&follow=true}) that reconnects:
 * {@link #run} hands every line (heartbeats too, as empty lines) to a handler, and when the
 * connection drops, the server answers 5xx or the handler throws an {@link IOException}, it waits
 * {@link #RECONNECT_BACKOFF} and reconnects with the query of that moment, so from the
 * caller's position. An answer retrying cannot change (any other status than 200) ends it with
 * {@link Refused}; {@link #close()} from another thread ends it quietly. Used by
 * {@link FeedFollower} and by the workers' event subscriber.
 */
public final class FeedConnection implements AutoCloseable {
  public static final Duration RECONNECT_BACKOFF = Duration.ofMillis(500);

  /** Takes one line of the feed. */
  @FunctionalInterface
  public interface Lines {
    void accept(String line) throws IOException, InterruptedException;
  }

  /** The feed refused the request: a bad token, a bad query. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    Refused(int status, String body) {
      super("the change feed answered " + status + " " + body);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  private final HttpClient http;
  private final URI events;
  private final String token;
  private volatile boolean closed;
  private volatile InputStream open;

  /** @param token the feed's read token, or null */
  public FeedConnection(HttpClient http, URI events, String token) {
    this.http = http;
    this.events = events;
    this.token = token;
  }

  /**
   * Follows until closed or interrupted (then returns) or refused (then throws).
   *
   * @param query the query of the next connection, e.g. {@code from=12&follow=true}
   * @param dropped told of each dropped connection before the reconnect
   */
  public void run(Supplier<String> query, Lines lines, Consumer<IOException> dropped)
      throws Refused {
    while (!closed) {
      try {
        readOnce(query.get(), lines);
      } catch (IOException e) {
        if (!closed) {
          dropped.accept(e);
        }
      } catch (InterruptedException e) {
        return;
      }
      try {
        Thread.sleep(RECONNECT_BACKOFF.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Ends {@link #run} (call from another thread; the running thread may also be interrupted). */
  @Override
  public void close() {
    closed = true;
    InputStream current = open;
    if (current != null) {
      try {
        current.close();
      } catch (IOException e) {
        // closing a dropped connection: nothing left to release
      }
    }
  }

  private void readOnce(String query, Lines lines)
      throws IOException, InterruptedException, Refused {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(events + "?" + query)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<InputStream> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      open = body;
      if (response.statusCode() >= 500) {
        throw new IOException("the change feed answered " + response.statusCode()); // reconnect
      }
      if (response.statusCode() != 200) {
        throw new Refused(response.statusCode(),
            new String(body.readNBytes(4096), StandardCharsets.UTF_8));
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null && !closed; line = reader.readLine()) {
        lines.accept(line);
      }
    } finally {
      open = null;
    }
  }
}
