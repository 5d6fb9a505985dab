package io.verglas.materializer.keyindex;

/**
 * Where the key index keeps a key's entry in keyed state: in one of the pages of its key group,
 * by linear hashing (Litwin, "Linear hashing: a new tool for file and table addressing", VLDB
 * 1980).
 *
 * <p>Design. A key group's entries (of every table whose keys fall into it) are spread over
 * {@code pages} pages, each one state entry. With {@code 2^L <= pages < 2^(L+1)}, a key whose
 * {@link #pageHash} is {@code h} lives in page {@code h mod 2^(L+1)}, or in {@code h mod 2^L}
 * when that page does not exist yet. Growing from {@code pages} to {@code pages + 1} splits one
 * page, {@code pages - 2^L} ({@link #parentOf} the new one): its entries stay or move to the new
 * page, and no other page changes. Pages only grow, one at a time, so a key group's index grows
 * by small steps spread over many checkpoints, never by rewriting all its pages at once.
 *
 * <p>Every page of a later layout has exactly one ancestor among the pages of an earlier one
 * ({@link #ancestorIn}), which holds every entry the later page gets: a write-back that reads
 * a page rewrites all its descendants from it alone.
 *
 * <p>State keys are strings: {@code <key group>/<page>} for a page and {@code <key group>/m} for
 * the group's {@link GroupMeta}, written under that key group explicitly (they are not routing
 * keys, so their own hash would put them elsewhere).
 */
final class PageLayout {
  /**
   * Entries per page on average. Why 32: a write-back rewrites every page one of its keys
   * changed in, so larger pages mean fewer state writes when most keys change between
   * checkpoints and more bytes rewritten per change when few do. At 32 a page is about a
   * kilobyte; with a small share of the keys changing per checkpoint a change rewrites a page
   * of about 32 entries where it wrote one entry before, at well under one write per key when
   * most of them change.
   */
  static final int ENTRIES_PER_PAGE = 32;
  /** Pages a key group may have: page numbers stay non-negative ints. */
  static final int MAX_PAGES = 1 << 30;
  private static final String META = "m";

  private PageLayout() {}

  /** The pages a key group holding {@code entries} entries is laid out in (0 for none). */
  static int pagesFor(long entries) {
    if (entries <= 0) {
      return 0;
    }
    long pages = (entries + ENTRIES_PER_PAGE - 1) / ENTRIES_PER_PAGE;
    if (pages > MAX_PAGES) {
      throw new IllegalStateException("Cannot lay out " + entries + " key index entries in one"
          + " key group: more than " + MAX_PAGES + " pages; raise the job's max parallelism");
    }
    return (int) pages;
  }

  /** The page of a key with {@code hash} among {@code pages} pages (at least one). */
  static int pageOf(long hash, int pages) {
    int low = Integer.highestOneBit(pages);
    int page = (int) (hash & (2L * low - 1));
    return page < pages ? page : page - low;
  }

  /** The page that {@code page} (at least 1) was split from. */
  static int parentOf(int page) {
    return page - Integer.highestOneBit(page);
  }

  /**
   * The page among the first {@code pages} (at least one) whose entries {@code page} was split
   * from, directly or through pages split from it in turn; {@code page} itself when it is one
   * of them.
   */
  static int ancestorIn(int page, int pages) {
    int ancestor = page;
    while (ancestor >= pages) {
      ancestor = parentOf(ancestor);
    }
    return ancestor;
  }

  /**
   * The well-mixed hash that places a key of a table, from the key bytes' {@link
   * KeyHash#of} and the table UUID (whose {@code String.hashCode} the Java language
   * defines, so every JVM computes the same pages).
   */
  static long pageHash(String tableUuid, long keyHash) {
    long h = keyHash ^ (tableUuid.hashCode() * 0x9E3779B97F4A7C15L);
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h & Long.MAX_VALUE;
  }

  static String pageKey(int keyGroup, int page) {
    return keyGroup + "/" + page;
  }

  static String metaKey(int keyGroup) {
    return keyGroup + "/" + META;
  }

  /** Whether a state key names a page (and not a key group's meta). */
  static boolean isPageKey(String stateKey) {
    return !stateKey.endsWith("/" + META);
  }

  /** The key group a state key was written under. */
  static int keyGroupOf(String stateKey) {
    int slash = stateKey.indexOf('/');
    if (slash <= 0) {
      throw new IllegalArgumentException("Cannot read key index state key: " + stateKey);
    }
    return Integer.parseInt(stateKey, 0, slash, 10);
  }
}
