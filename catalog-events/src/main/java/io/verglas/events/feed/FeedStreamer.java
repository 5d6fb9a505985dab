package io.verglas.events.feed;

import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Writes what a {@link FeedQuery} asks for as CloudEvents JSON lines, oldest first, to any HTTP
 * server's response body. With {@code follow} the stream stays open and carries new events as
 * they are appended, with an empty heartbeat line while idle so a dead subscriber is noticed
 * (its write fails). Events go out in pages of bounded count and bytes, one flush per page, so
 * a stream holds at most one page whatever the backlog.
 */
public final class FeedStreamer {
  static final int PAGE_EVENTS = 1_000;
  static final long PAGE_BYTES = 1L << 20;

  private final ChangeFeed feed;
  private final Duration heartbeat;
  private volatile boolean closed;

  public FeedStreamer(ChangeFeed feed, Duration heartbeat) {
    if (heartbeat.isNegative() || heartbeat.isZero()) {
      throw new IllegalArgumentException("Invalid heartbeat interval: " + heartbeat);
    }
    this.feed = feed;
    this.heartbeat = heartbeat;
  }

  /** Ends open follow streams (at server shutdown) within one heartbeat interval. */
  public void close() {
    closed = true;
  }

  /** Writes the query's events; returns at the end of them, or for follow at {@link #close()}. */
  public void stream(FeedQuery query, OutputStream out) throws IOException, InterruptedException {
    long next = query.from();
    while (!closed) {
      long last = feed.lastSequence(); // before the read, so an append racing it is not skipped
      List<FeedEvent> events = feed.read(next, query.filter(), PAGE_EVENTS, PAGE_BYTES);
      for (FeedEvent event : events) {
        out.write((FeedEventParser.toJson(event) + "\n").getBytes(StandardCharsets.UTF_8));
        next = event.feedSequence() + 1;
      }
      out.flush();
      if (!events.isEmpty()) {
        continue; // a page may have been cut by its bounds: read on until one comes back empty
      }
      next = Math.max(next, last + 1);
      if (!query.follow()) {
        return;
      }
      if (!feed.await(next, heartbeat.toMillis(), TimeUnit.MILLISECONDS)) {
        out.write('\n');
        out.flush();
      }
    }
  }
}
