package io.verglas.cache.awareness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One GET of the change feed ({@code <feed>?from=N[&follow=true]}), read as lines.
 *
 * <p>A blocking connection with a read timeout: a follow stream carries at least a heartbeat
 * line per heartbeat interval, so a read that waits longer than the idle timeout means a dead
 * peer or network, and fails so the watcher reconnects. {@link #close()} from another thread
 * unblocks a waiting read (the node is closing).
 */
final class FeedConnection implements AutoCloseable {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final int ERROR_BODY_LIMIT = 1024;

  private final HttpURLConnection connection;
  private final BufferedReader lines;

  private FeedConnection(HttpURLConnection connection, BufferedReader lines) {
    this.connection = connection;
    this.lines = lines;
  }

  /** Opens the feed from sequence {@code from}; fails unless the answer is 200. */
  static FeedConnection open(URI feed, long from, boolean follow, String token, Duration idleTimeout)
      throws IOException {
    URI uri = URI.create(feed + (feed.getRawQuery() == null ? "?" : "&") + "from=" + from
        + (follow ? "&follow=true" : ""));
    HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
    connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
    connection.setReadTimeout((int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis()));
    connection.setRequestProperty("Accept", "application/x-ndjson");
    if (token != null) {
      connection.setRequestProperty("Authorization", "Bearer " + token);
    }
    try {
      int status = connection.getResponseCode();
      if (status != 200) {
        throw new IOException("Cannot follow the change feed " + feed + ": HTTP " + status + " "
            + errorBody(connection));
      }
      return new FeedConnection(connection, new BufferedReader(
          new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      connection.disconnect();
      throw e;
    }
  }

  /** The next line, or null at the end of the response. */
  String readLine() throws IOException {
    return lines.readLine();
  }

  /** Whether a line can be read without waiting. */
  boolean ready() throws IOException {
    return lines.ready();
  }

  private static String errorBody(HttpURLConnection connection) {
    try (InputStream in = connection.getErrorStream()) {
      if (in == null) {
        return "";
      }
      return new String(in.readNBytes(ERROR_BODY_LIMIT), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() {
    connection.disconnect();
  }
}
