package io.verglas.sdk;

import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEntry;
import io.verglas.events.FeedEventParser;
import io.verglas.table.TableIdentifiers;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
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

  private final FeedConnection connection;
  private final TableIdentifier table;
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE_EVENTS);
  private final Thread reader;
  private volatile long next;

  FeedFollower(HttpClient http, URI events, String token, TableIdentifier table, long fromPosition) {
    if (fromPosition < 1) {
      throw new IllegalArgumentException("Invalid feed position: " + fromPosition + " (1 or more)");
    }
    this.connection = new FeedConnection(http, events, token);
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
    connection.close();
    reader.interrupt();
  }

  private void readLoop() {
    try {
      connection.run(this::query, line -> {
        if (!line.isBlank()) {
          accept(entry(line));
        }
      }, dropped -> { }); // reconnects after the last queued event
    } catch (FeedConnection.Refused e) {
      queue.offer(new VerglasException(status(e.status()), "Cannot follow " + table + ": "
          + e.getMessage()));
    } catch (VerglasException e) {
      queue.offer(e);
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

  private String query() {
    return "from=" + next + "&follow=true&table="
        + URLEncoder.encode(TableIdentifiers.toString(table), StandardCharsets.UTF_8);
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
