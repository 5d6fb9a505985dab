package io.verglas.cache.awareness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tables the watcher and the poller have seen, each with its latest metadata location. Both
 * compare a commit with the known location ({@link #putIfChanged}), so a commit the feed
 * delivered is not walked again when the poller finds it, nor the other way round.
 *
 * <p>Design: every known table is held as two 64-bit hashes, of its name and of its metadata
 * location, in a primitive map ({@link LongLongMap}: about 32 bytes a table and no object), at
 * most {@code maxKnown} tables; beyond that an arbitrary one is forgotten (it is walked again on
 * its next commit, or recorded again when next seen without data). So a catalog of idle tables
 * costs no strings. Hashes may collide: two names with one hash share one entry, so each poll
 * sees the other's location and walks the table again (needless walks, read from the node's
 * caches while they hold them; a table created without data is walked where it would not be);
 * two locations with one hash would hide a commit from the comparison (not walked: read on
 * demand, warmed on its next commit). At 64 bits: about 3
 * chances in 10^8 that any two of a million names share a hash, 1 in 2^64 for a commit. Only the tables walked ({@link #put},
 * {@link #putIfChanged}; not those {@link #recordUnwalked recorded without data}) are also kept
 * by name and location, least recently committed first, at most {@code maxNamed} (the least
 * recently committed is forgotten first): {@link #snapshot()}, which the watcher walks at
 * startup and after a feed gap, and saves.
 */
final class KnownTables {
  /** Tables known by hash: about 32 MiB at this bound. */
  static final int MAX_KNOWN = 1 << 20;

  private final int maxNamed;
  private final LongLongMap known;
  private final LinkedHashMap<String, String> named = new LinkedHashMap<>();

  KnownTables(int maxNamed) {
    this(maxNamed, MAX_KNOWN);
  }

  KnownTables(int maxNamed, int maxKnown) {
    this.maxNamed = maxNamed;
    this.known = new LongLongMap(maxKnown);
  }

  /** Records the table's location, to be walked (so also by name). */
  synchronized void put(String table, String metadataLocation) {
    known.put(hash(table), hash(metadataLocation));
    named.remove(table);
    named.put(table, metadataLocation);
    if (named.size() > maxNamed) {
      named.remove(named.keySet().iterator().next());
    }
  }

  synchronized boolean knows(String table) {
    return known.containsKey(hash(table));
  }

  /** Records the table's location, to be walked; false (nothing changed) if it was known. */
  synchronized boolean putIfChanged(String table, String metadataLocation) {
    if (known.get(hash(table), 0) == hash(metadataLocation)) {
      return false;
    }
    put(table, metadataLocation);
    return true;
  }

  /**
   * Records a table that is not walked (created without data) if it is not known: by hash only.
   * True if it was recorded, false if the table was known (nothing changed).
   */
  synchronized boolean recordUnwalked(String table, String metadataLocation) {
    long name = hash(table);
    if (known.containsKey(name)) {
      return false;
    }
    known.put(name, hash(metadataLocation));
    return true;
  }

  synchronized void putAll(Map<String, String> more) {
    more.forEach(this::put);
  }

  /** The tables known by name (those walked), least recently committed first. */
  synchronized Map<String, String> snapshot() {
    return new LinkedHashMap<>(named);
  }

  /** Tables known (by hash). */
  synchronized int size() {
    return known.size();
  }

  /**
   * A 64-bit hash of the string's chars: FNV-1a, then MurmurHash3's finalizer so that
   * every bit of the result depends on every input byte; never 0 (0 is an absent location).
   */
  static long hash(String value) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < value.length(); i++) {
      h = (h ^ value.charAt(i)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h == 0 ? 1 : h;
  }
}
