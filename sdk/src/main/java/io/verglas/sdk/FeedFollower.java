package io.verglas.sdk;

import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEntry;
import io.verglas.events.FeedEventParser;
import io.verglas.table.TableIdentifiers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Follows the commits of one table on the change feed ({@code GET /events?follow=true}), from a
 * position the caller keeps: pass {@link TableCommit#nextPosition()} of the last commit handled
 * to a new follower to resume after it (1 for the beginning of the feed).
 *
 * <p>Design: one daemon thread reads the feed's JSON lines into a bounded queue (a slow consumer
 * stops the reading, and TCP stops the server); {@link #poll} takes from it with an exact
 * timeout. Events of other types (table maintenance) and heartbeat lines are skipped. When the
 * connection drops, the thread reconnects from the position after the last event it queued, so
 * no commit is lost or repeated; an answer the server refuses (bad token, bad request) ends the
 * follower, and the next {@link #poll} throws it. {@link #close()} stops the thread.
 */
public final class FeedFollower implements AutoCloseable {
  private static final int QUEUE_EVENTS = 256;
  private static final Duration RECONNECT_BACKOFF = Duration.ofMillis(500);

  private final HttpClient http;
  private final URI events;
  private final String token;
  private final TableIdentifier table;
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE_EVENTS);
  private final Thread reader;
  private volatile boolean closed;
  private volatile InputStream open;
  private long next;

  FeedFollower(HttpClient http, URI events, String token, TableIdentifier table, long fromPosition) {
    if (fromPosition < 1) {
      throw new IllegalArgumentException("Invalid feed position: " + fromPosition + " (1 or more)");
    }
    this.http = http;
    this.events = events;
    this.token = token;
    this.table = table;
    this.next = fromPosition;
    this.reader = new Thread(this::readLoop, "verglas-feed-" + TableIdentifiers.toString(table));
    reader.setDaemon(true);
    reader.start();
  }

  /** The next commit, waiting at most {@code timeout}; null when none came in time. */
  public TableCommit poll(Duration timeout) {
    Object item;
    try {
      item = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new VerglasException(FlightStatusCode.CANCELLED, "Interrupted following " + table);
    }
    if (item instanceof VerglasException failure) {
      queue.offer(failure); // every later poll fails the same way
      throw failure;
    }
    return (TableCommit) item;
  }

  @Override
  public void close() {
    closed = true;
    reader.interrupt();
    InputStream current = open;
    if (current != null) {
      try {
        current.close();
      } catch (IOException e) {
        // closing a dropped connection: nothing left to release
      }
    }
  }

  private void readLoop() {
    while (!closed) {
      try {
        readOnce();
      } catch (VerglasException e) {
        queue.offer(e);
        return;
      } catch (IOException e) {
        // dropped: reconnect after the last queued event
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

  private void readOnce() throws IOException, InterruptedException {
    HttpResponse<InputStream> response = http.send(request(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      open = body;
      if (response.statusCode() >= 500) {
        throw new IOException("the change feed answered " + response.statusCode()); // reconnect
      }
      if (response.statusCode() != 200) {
        String message = new String(body.readNBytes(4096), StandardCharsets.UTF_8);
        throw new VerglasException(status(response.statusCode()), "Cannot follow " + table
            + ": the change feed answered " + response.statusCode() + " " + message);
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
      for (String line = lines.readLine(); line != null && !closed; line = lines.readLine()) {
        if (!line.isBlank()) {
          accept(entry(line));
        }
      }
    } finally {
      open = null;
    }
  }

  private void accept(FeedEntry entry) throws InterruptedException {
    if (entry.event().orElse(null) instanceof CatalogEvent commit) {
      queue.put(new TableCommit(commit.feedSequence(), commit.snapshotId(), commit.parentSnapshotId(),
          commit.sequenceNumber(), commit.operation(), commit.time(), commit.summary()));
    }
    next = Math.max(next, entry.feedSequence() + 1);
  }

  private FeedEntry entry(String line) {
    try {
      return FeedEventParser.entryFromJson(line);
    } catch (IllegalArgumentException e) {
      throw new VerglasException(FlightStatusCode.INTERNAL, "Cannot follow " + table + ": "
          + e.getMessage(), e);
    }
  }

  private HttpRequest request() {
    URI uri = URI.create(events + "?from=" + next + "&follow=true&table="
        + URLEncoder.encode(TableIdentifiers.toString(table), StandardCharsets.UTF_8));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request.build();
  }

  private static FlightStatusCode status(int http) {
    return switch (http) {
      case 400 -> FlightStatusCode.INVALID_ARGUMENT;
      case 401 -> FlightStatusCode.UNAUTHENTICATED;
      case 403 -> FlightStatusCode.UNAUTHORIZED;
      case 404 -> FlightStatusCode.NOT_FOUND;
      default -> FlightStatusCode.UNAVAILABLE;
    };
  }
}
