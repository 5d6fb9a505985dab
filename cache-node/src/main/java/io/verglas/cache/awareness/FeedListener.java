package io.verglas.cache.awareness;

import io.verglas.events.FeedEvent;

/**
 * Told of each change feed event the catalog watcher handles, on the watcher's thread, after the
 * event was applied (its table's new metadata queued for warming). Keep it fast; what it throws
 * is logged and does not stop the watcher.
 */
@FunctionalInterface
public interface FeedListener {
  FeedListener NONE = event -> { };

  void onEvent(FeedEvent event);
}
