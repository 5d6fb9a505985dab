package io.verglas.cache.awareness;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mapper's index: object (bucket, key) → {@link FileLayout}, for the data files of every
 * walked table, and per table the generation it was built from.
 *
 * <p>Design: immutable once built. The request path reads it through one volatile reference
 * ({@link RequestClassifier}) with two hash lookups and no lock; a walk builds a successor with
 * {@link #withTable} on the warmer thread and publishes it in one swap. Building copies the
 * key maps (linear in indexed files, off the request path; walks run one at a time).
 *
 * <p>Snapshot range: a table's files are those of its current snapshot (live, from the sequence
 * number they were added at) plus the files the last walk retired ({@link Generation#retired}):
 * readers pinned to the previous snapshot keep being classified across one commit, such as a
 * compaction's. Files retired two walks ago leave the index (they are still served and cached;
 * their reads are just no longer counted).
 *
 * <p>Memory: a table has an entry only while it has indexed files (live or retired), so
 * tables that were never written cost nothing. Bounded by a count of column chunks over all
 * files ({@code maxChunks}); a file that would exceed it is not indexed (its reads are not
 * classified) and counted.
 */
final class FileIndex {
  static final FileIndex EMPTY = new FileIndex(Map.of(), Map.of(), 0);

  /**
   * One table's files as of a walk.
   *
   * @param snapshotId the walked current snapshot, or -1 when the table had none
   * @param live the current snapshot's indexed data files
   * @param retired files the previous generation held live that this one does not
   */
  record Generation(long snapshotId, Map<ObjectLocation, FileLayout> live, Set<ObjectLocation> retired) {
    static final Generation NONE = new Generation(-1, Map.of(), Set.of());
  }

  /** A successor index, and how many files the chunk bound kept out of it. */
  record Update(FileIndex index, int filesNotIndexed) {}

  private final Map<String, Map<String, FileLayout>> files;
  private final Map<String, Generation> tables;
  private final long chunks;

  private FileIndex(Map<String, Map<String, FileLayout>> files, Map<String, Generation> tables, long chunks) {
    this.files = files;
    this.tables = tables;
    this.chunks = chunks;
  }

  /** The layout of an indexed file, or null; no lock, no allocation. */
  FileLayout lookup(String bucket, String key) {
    Map<String, FileLayout> keys = files.get(bucket);
    return keys == null ? null : keys.get(key);
  }

  Generation table(String table) {
    return tables.getOrDefault(table, Generation.NONE);
  }

  long chunks() {
    return chunks;
  }

  /** Tables with an entry: those with indexed (live or retired) files. */
  int tables() {
    return tables.size();
  }

  long files() {
    long n = 0;
    for (Map<String, FileLayout> keys : files.values()) {
      n += keys.size();
    }
    return n;
  }

  /**
   * This index with {@code table}'s files replaced by a new generation: {@code live} as of
   * {@code snapshotId}, the previous generation's live files that are gone kept as retired, and
   * older retired files dropped. New files beyond {@code maxChunks} are left out.
   */
  Update withTable(String table, long snapshotId, List<FileLayout> live, long maxChunks) {
    Generation previous = table(table);
    Map<String, Map<String, FileLayout>> copy = new HashMap<>();
    files.forEach((bucket, keys) -> copy.put(bucket, new HashMap<>(keys)));
    long total = chunks;
    for (ObjectLocation gone : previous.retired()) {
      total -= remove(copy, gone);
    }
    Map<ObjectLocation, FileLayout> nowLive = new LinkedHashMap<>();
    int skipped = 0;
    for (FileLayout layout : live) {
      ObjectLocation at = ObjectLocation.parse(layout.location());
      boolean known = previous.live().containsKey(at);
      if (!known && total + layout.chunkCount() > maxChunks) {
        skipped++;
        continue;
      }
      if (!known) {
        total += layout.chunkCount() - remove(copy, at);
        copy.computeIfAbsent(at.bucket(), b -> new HashMap<>()).put(at.key(), layout);
      }
      nowLive.put(at, layout);
    }
    Set<ObjectLocation> retired = new java.util.HashSet<>(previous.live().keySet());
    retired.removeAll(nowLive.keySet());
    Map<String, Generation> generations = new HashMap<>(tables);
    if (nowLive.isEmpty() && retired.isEmpty()) {
      // nothing indexed (a table never written, or all its files beyond the bound): no entry,
      // so the index holds no state for the idle tables a walk of the whole catalog visits
      generations.remove(table);
    } else {
      generations.put(table, new Generation(snapshotId, Map.copyOf(nowLive), Set.copyOf(retired)));
    }
    return new Update(new FileIndex(copy, generations, total), skipped);
  }

  /** Removes a file; returns the chunks it held (0 if absent). */
  private static long remove(Map<String, Map<String, FileLayout>> files, ObjectLocation at) {
    Map<String, FileLayout> keys = files.get(at.bucket());
    FileLayout removed = keys == null ? null : keys.remove(at.key());
    return removed == null ? 0 : removed.chunkCount();
  }
}
