package io.verglas.cache.awareness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the catalog watcher keeps across restarts: the feed it follows, the sequence of the last
 * line it handled, and each known table's latest metadata location (oldest commit first), so a
 * restarted node resumes the feed after that line and warms those tables at startup.
 */
record WatcherState(String feed, long sequence, Map<String, String> tables) {
  WatcherState {
    Objects.requireNonNull(feed, "feed");
    if (sequence < 0) {
      throw new IllegalArgumentException("Invalid feed sequence: " + sequence);
    }
    tables = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tables));
  }
}
