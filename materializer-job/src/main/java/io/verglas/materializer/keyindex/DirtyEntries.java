package io.verglas.materializer.keyindex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The key index entries written since they were last written back to the pages, in the order
 * they were written (a key written twice is here twice; the later one counts), with each
 * record's key group and whether its key was new then. Their hashes are taken by the
 * write-back ({@link #hashKeys}), off the thread that collects them.
 *
 * <p>Records are held in chunks of {@link #CHUNK} ({@link IndexPage} columns each), kept for
 * reuse when cleared: a checkpoint's records are hundreds of thousands, and columns of that
 * length, grown by doubling, were large arrays that the collector treats as humongous objects
 * (each allocation could start a collection).
 */
final class DirtyEntries {
  static final int CHUNK = 8192;
  private static final int SHIFT = Integer.numberOfTrailingZeros(CHUNK);

  private final List<Chunk> chunks = new ArrayList<>();
  private int size;

  void add(String tableUuid, byte[] key, int keyGroup, boolean newKey, KeyEntry entry) {
    int chunk = size >>> SHIFT;
    if (chunk == chunks.size()) {
      chunks.add(new Chunk());
    }
    chunks.get(chunk).add(tableUuid, key, keyGroup, newKey, entry);
    size++;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Empties it, keeping its chunks. */
  void clear() {
    for (int chunk = 0; chunk < chunks.size() && chunk <= (size - 1) >>> SHIFT; chunk++) {
      chunks.get(chunk).clear();
    }
    size = 0;
  }

  /** Takes every record's {@link PageLayout#pageHash}. */
  void hashKeys() {
    for (int i = 0; i < size; i++) {
      chunkOf(i).hashKey(offset(i));
    }
  }

  /** The columns holding record {@code i}, at {@link #offset}. */
  IndexPage chunkOf(int i) {
    return chunks.get(i >>> SHIFT);
  }

  static int offset(int i) {
    return i & (CHUNK - 1);
  }

  String table(int i) {
    return chunkOf(i).table(offset(i));
  }

  byte[] key(int i) {
    return chunkOf(i).key(offset(i));
  }

  long hash(int i) {
    return chunkOf(i).hash(offset(i));
  }

  int keyGroup(int i) {
    return chunks.get(i >>> SHIFT).keyGroups[offset(i)];
  }

  /** Whether the key had no entry when this record was written. */
  boolean newKey(int i) {
    return chunks.get(i >>> SHIFT).fresh[offset(i)];
  }

  /** One chunk of records: the entries' columns, and their key groups and newness. */
  private static final class Chunk extends IndexPage {
    private int[] keyGroups = new int[64];
    private boolean[] fresh = new boolean[64];

    void add(String tableUuid, byte[] key, int keyGroup, boolean newKey, KeyEntry entry) {
      int i = size();
      if (i == keyGroups.length) {
        keyGroups = Arrays.copyOf(keyGroups, i * 2);
        fresh = Arrays.copyOf(fresh, i * 2);
      }
      keyGroups[i] = keyGroup;
      fresh[i] = newKey;
      add(tableUuid, key, 0, entry);
    }
  }
}
