package io.verglas.events.feed;

/**
 * The bounds of a {@link ChangeFeed}, so that neither its memory, its file nor one request can
 * grow without limit.
 *
 * @param retainedEvents events kept in memory for readers (the oldest go first)
 * @param retainedBytes JSON bytes of the events kept in memory; the heap they take is a small
 *     multiple of this (parsed objects, not text)
 * @param maxEventBytes the largest event accepted, as its JSON line: a larger publish is
 *     refused, and a larger line in the feed file is skipped at recovery without being read
 *     into memory
 */
public record FeedBounds(int retainedEvents, long retainedBytes, int maxEventBytes) {
  public static final int RETAINED_EVENTS_DEFAULT = 100_000;
  public static final long RETAINED_BYTES_DEFAULT = 32L << 20;
  public static final int MAX_EVENT_BYTES_DEFAULT = 1 << 20;

  public FeedBounds {
    if (retainedEvents < 1) {
      throw new IllegalArgumentException(
          "Invalid retained event count: " + retainedEvents + " (at least 1)");
    }
    if (maxEventBytes < 1) {
      throw new IllegalArgumentException(
          "Invalid max event size: " + maxEventBytes + " bytes (at least 1)");
    }
    if (retainedBytes < maxEventBytes) {
      throw new IllegalArgumentException("Invalid retained bytes: " + retainedBytes
          + " (at least the max event size, " + maxEventBytes + ", so the newest event fits)");
    }
  }

  public static FeedBounds defaults() {
    return new FeedBounds(RETAINED_EVENTS_DEFAULT, RETAINED_BYTES_DEFAULT,
        MAX_EVENT_BYTES_DEFAULT);
  }

  public FeedBounds withRetainedEvents(int events) {
    return new FeedBounds(events, retainedBytes, maxEventBytes);
  }

  public FeedBounds withRetainedBytes(long bytes) {
    return new FeedBounds(retainedEvents, bytes, maxEventBytes);
  }

  public FeedBounds withMaxEventBytes(int bytes) {
    return new FeedBounds(retainedEvents, retainedBytes, bytes);
  }
}
