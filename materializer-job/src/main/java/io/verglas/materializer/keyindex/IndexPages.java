package io.verglas.materializer.keyindex;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The key index as stored: pages of entries per key group ({@link PageLayout}) in an
 * {@link IndexPageStore}, with each group's {@link GroupMeta}. Looks one key up, writes back the
 * entries written since the last write-back, and reads every entry (for a restored index).
 *
 * <p>Write-back. The records are grouped by key group. A group's new layout has enough pages
 * for its entries once the new keys are added, never fewer than before. Every page of the old
 * layout that a record falls into, or that is split to make the new pages, is one unit: its
 * stored entries are read, the unit's records are applied in the order they were written (a
 * later record of a key replaces an earlier one), and the result is spread over the pages of
 * the new layout that descend from it, each written once. Each page of the new layout descends
 * from exactly one old page, so the units never write the same page, and a page no unit reads
 * keeps its entries. One unit is in memory at a time, so a write-back holds a page's worth of
 * decoded entries beyond its records (a group's records when the group had no page yet).
 *
 * <p>Not thread-safe: one thread at a time, as its store.
 */
public final class IndexPages {
  private final IndexPageStore store;
  private final PageBytesCache pageBytes;
  private final Map<Integer, GroupMeta> metas = new HashMap<>();
  private final IndexPageCodec lookupCodec = new IndexPageCodec();
  private final IndexPage lookupPage = new IndexPage();
  private final IndexPageCodec writeCodec = new IndexPageCodec();
  private final IndexPage unit = new IndexPage();
  /** The records of a write-back by key group (kept: a checkpoint's are megabytes). */
  private long[] byGroup = new long[0];
  private long pagesWritten;
  private long pagesRead;

  /** Pages in {@code store}, the bytes of recent ones kept up to {@code pageBytesBudget}. */
  public IndexPages(IndexPageStore store, long pageBytesBudget) {
    this.store = store;
    this.pageBytes = new PageBytesCache(pageBytesBudget);
  }

  /** Pages in {@code store}, none kept in memory. */
  public IndexPages(IndexPageStore store) {
    this(store, 0);
  }

  /** The meta of {@code keyGroup}, read from the store the first time. */
  GroupMeta meta(int keyGroup) throws Exception {
    GroupMeta meta = metas.get(keyGroup);
    if (meta == null) {
      meta = GroupMeta.fromBytes(store.get(keyGroup, PageLayout.metaKey(keyGroup)));
      metas.put(keyGroup, meta);
    }
    return meta;
  }

  /** The stored entry of {@code key} in table {@code tableUuid}, or null. */
  public KeyEntry lookup(String tableUuid, byte[] key, int keyGroup) throws Exception {
    GroupMeta meta = meta(keyGroup);
    if (meta.pages() == 0) {
      return null;
    }
    long hash = PageLayout.pageHash(tableUuid, KeyHash.of(key));
    byte[] bytes = read(keyGroup, PageLayout.pageOf(hash, meta.pages()));
    if (bytes == null) {
      return null;
    }
    lookupCodec.decode(bytes, lookupPage);
    int at = lookupPage.find(tableUuid, key, hash);
    return at < 0 ? null : lookupPage.entry(at);
  }

  /** How many entries the groups {@code keyGroups} hold (their metas read). */
  long entries(Iterable<Integer> keyGroups) throws Exception {
    long entries = 0;
    for (int keyGroup : keyGroups) {
      entries += meta(keyGroup).entries();
    }
    return entries;
  }

  /** Hands every stored entry to {@code consumer}, page by page. */
  void forEachEntry(EntryConsumer consumer) throws Exception {
    IndexPage page = lookupPage;
    try (Stream<String> keys = store.keys()) {
      Iterator<String> it = keys.iterator();
      while (it.hasNext()) {
        String key = it.next();
        if (!PageLayout.isPageKey(key)) {
          continue;
        }
        int keyGroup = PageLayout.keyGroupOf(key);
        byte[] bytes = store.get(keyGroup, key);
        if (bytes == null) {
          continue;
        }
        lookupCodec.decode(bytes, page);
        for (int i = 0; i < page.size(); i++) {
          consumer.accept(page.table(i), page.key(i), page.entry(i));
        }
      }
    }
  }

  /** Writes every record of {@code dirty} into the pages of its key group. */
  void writeBack(DirtyEntries dirty) throws Exception {
    dirty.hashKeys();
    int records = dirty.size();
    if (byGroup.length < records) {
      byGroup = new long[Math.max(records, byGroup.length * 2)];
    }
    for (int i = 0; i < records; i++) {
      byGroup[i] = ((long) dirty.keyGroup(i) << 32) | i;
    }
    Arrays.sort(byGroup, 0, records);
    for (int from = 0; from < records; ) {
      int keyGroup = (int) (byGroup[from] >>> 32);
      int to = from;
      while (to < records && (int) (byGroup[to] >>> 32) == keyGroup) {
        to++;
      }
      writeGroup(keyGroup, dirty, from, to);
      from = to;
    }
  }

  /** Pages written, and read from the store (look-ups and write-backs), so far. */
  long pagesWritten() {
    return pagesWritten;
  }

  long pagesRead() {
    return pagesRead;
  }

  /** Writes the records {@code byGroup[from, to)} (low halves: record indexes) of one group. */
  private void writeGroup(int keyGroup, DirtyEntries dirty, int from, int to) throws Exception {
    GroupMeta meta = meta(keyGroup);
    int count = to - from;
    long[] byUnit = new long[count];
    long newKeys = 0;
    int oldPages = meta.pages();
    for (int r = 0; r < count; r++) {
      int record = (int) byGroup[from + r];
      int unitPage = oldPages == 0 ? 0 : PageLayout.pageOf(dirty.hash(record), oldPages);
      byUnit[r] = ((long) unitPage << 32) | record;
      newKeys += dirty.newKey(record) ? 1 : 0;
    }
    Arrays.sort(byUnit);
    int newPages = Math.max(Math.max(oldPages, 1),
        PageLayout.pagesFor(meta.entries() + newKeys));
    int[] units = units(byUnit, oldPages, newPages);
    long added = 0;
    int next = 0;
    for (int unitPage : units) {
      unit.clear();
      if (oldPages > 0) {
        byte[] stored = read(keyGroup, unitPage);
        if (stored != null) {
          writeCodec.decode(stored, unit);
        }
      }
      while (next < count && (int) (byUnit[next] >>> 32) == unitPage) {
        int record = (int) byUnit[next++];
        added += unit.put(dirty.chunkOf(record), DirtyEntries.offset(record)) ? 1 : 0;
      }
      spread(keyGroup, unitPage, oldPages > 0, newPages);
    }
    meta.set(newPages, meta.entries() + added);
    store.put(keyGroup, PageLayout.metaKey(keyGroup), meta.toBytes());
  }

  /**
   * The old pages to rewrite, ascending: those the records fall into ({@code byUnit}, sorted)
   * and those split to make pages {@code [oldPages, newPages)}.
   */
  private static int[] units(long[] byUnit, int oldPages, int newPages) {
    int[] units = new int[byUnit.length + Math.max(0, newPages - oldPages)];
    int n = 0;
    for (long packed : byUnit) {
      units[n++] = (int) (packed >>> 32);
    }
    if (oldPages > 0) {
      for (int page = oldPages; page < newPages; page++) {
        units[n++] = PageLayout.ancestorIn(page, oldPages);
      }
    }
    Arrays.sort(units, 0, n);
    int distinct = 0;
    for (int i = 0; i < n; i++) {
      if (distinct == 0 || units[distinct - 1] != units[i]) {
        units[distinct++] = units[i];
      }
    }
    return Arrays.copyOf(units, distinct);
  }

  /**
   * Writes the unit's entries into their pages of the new layout, each a descendant of
   * {@code unitPage}; the unit's own page is removed when it keeps no entry.
   */
  private void spread(int keyGroup, int unitPage, boolean unitStored, int newPages)
      throws Exception {
    int size = unit.size();
    long[] byPage = new long[size];
    for (int i = 0; i < size; i++) {
      byPage[i] = ((long) PageLayout.pageOf(unit.hash(i), newPages) << 32) | i;
    }
    Arrays.sort(byPage);
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = (int) byPage[i];
    }
    boolean unitPageKept = false;
    for (int from = 0; from < size; ) {
      int page = (int) (byPage[from] >>> 32);
      int to = from;
      while (to < size && (int) (byPage[to] >>> 32) == page) {
        to++;
      }
      byte[] bytes = writeCodec.encode(unit, order, from, to);
      store.put(keyGroup, PageLayout.pageKey(keyGroup, page), bytes);
      pageBytes.put(keyGroup, page, bytes);
      pagesWritten++;
      unitPageKept |= page == unitPage;
      from = to;
    }
    if (unitStored && !unitPageKept) {
      store.remove(keyGroup, PageLayout.pageKey(keyGroup, unitPage));
      pageBytes.put(keyGroup, unitPage, null);
    }
  }

  /** The stored bytes of a page, from memory when kept there. */
  private byte[] read(int keyGroup, int page) throws Exception {
    byte[] bytes = pageBytes.get(keyGroup, page);
    if (bytes == null) {
      bytes = store.get(keyGroup, PageLayout.pageKey(keyGroup, page));
      pagesRead++;
      pageBytes.put(keyGroup, page, bytes);
    }
    return bytes;
  }

  /** Receives stored entries. */
  interface EntryConsumer {
    void accept(String tableUuid, byte[] key, KeyEntry entry) throws Exception;
  }
}
