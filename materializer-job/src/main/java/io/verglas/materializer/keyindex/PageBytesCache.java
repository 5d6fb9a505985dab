package io.verglas.materializer.keyindex;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored bytes of recently written or read key index pages, by key group and page, up to a
 * byte budget (least recently used first out).
 *
 * <p>Why: a write-back reads every page it rewrites, and in a checkpoint where most keys changed
 * that is every page, read back from RocksDB a checkpoint after it was written (block cache
 * misses, a file read and a copy each; measured: a third of the write-back thread). Only the
 * index writes its pages, so what it wrote last is what the state holds.
 *
 * <p>Not thread-safe.
 */
final class PageBytesCache {
  /** What an entry costs beyond its bytes: map node, boxed key, array header. */
  static final int ENTRY_OVERHEAD = 96;

  private final long budget;
  private long bytes;
  /** In access order: the first is the least recently used. */
  private final LinkedHashMap<Long, byte[]> pages = new LinkedHashMap<>(1024, 0.75f, true);

  /** A cache of up to {@code budget} bytes (0: none). */
  PageBytesCache(long budget) {
    if (budget < 0) {
      throw new IllegalArgumentException("Cannot cache pages in " + budget + " bytes");
    }
    this.budget = budget;
  }

  /** The bytes of the page, or null when not cached. */
  byte[] get(int keyGroup, int page) {
    return budget == 0 ? null : pages.get(key(keyGroup, page));
  }

  /** Remembers the page's bytes (null: the page has none). */
  void put(int keyGroup, int page, byte[] value) {
    if (budget == 0) {
      return;
    }
    byte[] previous = value == null ? pages.remove(key(keyGroup, page))
        : pages.put(key(keyGroup, page), value);
    if (previous != null) {
      bytes -= cost(previous);
    }
    if (value != null) {
      bytes += cost(value);
      while (bytes > budget && !pages.isEmpty()) {
        Map.Entry<Long, byte[]> eldest = pages.entrySet().iterator().next();
        bytes -= cost(eldest.getValue());
        pages.remove(eldest.getKey());
      }
    }
  }

  long bytes() {
    return bytes;
  }

  int size() {
    return pages.size();
  }

  private static long cost(byte[] value) {
    return value.length + ENTRY_OVERHEAD;
  }

  private static Long key(int keyGroup, int page) {
    return ((long) keyGroup << 32) | page;
  }
}
