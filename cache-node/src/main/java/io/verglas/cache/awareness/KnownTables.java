package io.verglas.cache.awareness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tables the watcher and the poller have seen, each with its latest metadata location, least
 * recently committed first; bounded by a count (the least recently committed table is forgotten
 * first: it is then warmed again on its next commit, not at startup or after a feed gap). Both
 * compare a commit with the known location ({@link #putIfChanged}), so a commit the feed
 * delivered is not walked again when the poller finds it, nor the other way round.
 */
final class KnownTables {
  private final int max;
  private final LinkedHashMap<String, String> tables = new LinkedHashMap<>();

  KnownTables(int max) {
    this.max = max;
  }

  synchronized void put(String table, String metadataLocation) {
    tables.remove(table);
    tables.put(table, metadataLocation);
    if (tables.size() > max) {
      tables.remove(tables.keySet().iterator().next());
    }
  }

  synchronized boolean knows(String table) {
    return tables.containsKey(table);
  }

  /** Records the table's metadata location; false (nothing changed) if it was already known. */
  synchronized boolean putIfChanged(String table, String metadataLocation) {
    if (metadataLocation.equals(tables.get(table))) {
      return false;
    }
    put(table, metadataLocation);
    return true;
  }

  synchronized void putAll(Map<String, String> more) {
    more.forEach(this::put);
  }

  synchronized Map<String, String> snapshot() {
    return new LinkedHashMap<>(tables);
  }

  synchronized int size() {
    return tables.size();
  }
}
