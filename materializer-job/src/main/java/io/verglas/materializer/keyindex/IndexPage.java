package io.verglas.materializer.keyindex;

import java.util.Arrays;

/**
 * Key index entries held as columns: per entry its table UUID, primary key bytes, {@link
 * PageLayout#pageHash} and the fields of its {@link KeyEntry}. One page decoded
 * ({@link IndexPageCodec}), or the entries collected for a write-back ({@link DirtyEntries}).
 *
 * <p>Why columns, not objects: a write-back decodes, merges and encodes every page a changed key
 * falls into, which in a checkpoint where most keys changed is the whole index; an object per
 * entry (and per key) made that the largest source of garbage in the writer, and entries
 * collected over a checkpoint interval lived long enough to be copied by the collector. Key
 * bytes live in one array, strings (tables, streams, files) are shared instances.
 *
 * <p>A key is found by a scan over the hashes while there are few entries (a page), through a
 * table of the hashes beyond (the records of a key group written back for the first time),
 * built on the first such look-up.
 */
class IndexPage {
  /** Entries up to which a scan finds a key; beyond, the hash table does. */
  private static final int SCANNED = 32;

  private String[] tables = new String[SCANNED];
  private long[] hashes = new long[SCANNED];
  private int[] keyStarts = new int[SCANNED];
  private int[] keyLengths = new int[SCANNED];
  private byte[] keyBytes = new byte[SCANNED * 16];
  private int keyBytesUsed;
  private long[] hlcs = new long[SCANNED];
  private String[] streams = new String[SCANNED];
  private long[] sequences = new long[SCANNED];
  private int[] batches = new int[SCANNED];
  private int[] rows = new int[SCANNED];
  private String[] files = new String[SCANNED];
  private long[] positions = new long[SCANNED];
  private boolean[] deleted = new boolean[SCANNED];
  private int size;
  /**
   * Open addressing over the hashes of entries {@code [0, indexed)}: entry index + 1, 0 when
   * empty; built on the first look-up among more than SCANNED entries.
   */
  private int[] slots;
  private int indexed;

  final int size() {
    return size;
  }

  final String table(int i) {
    return tables[i];
  }

  final long hash(int i) {
    return hashes[i];
  }

  /** A copy of the key bytes of entry {@code i}. */
  final byte[] key(int i) {
    return Arrays.copyOfRange(keyBytes, keyStarts[i], keyStarts[i] + keyLengths[i]);
  }

  final int keyLength(int i) {
    return keyLengths[i];
  }

  final long hlc(int i) {
    return hlcs[i];
  }

  final String stream(int i) {
    return streams[i];
  }

  final long sequence(int i) {
    return sequences[i];
  }

  final int batch(int i) {
    return batches[i];
  }

  final int row(int i) {
    return rows[i];
  }

  final String file(int i) {
    return files[i];
  }

  final long position(int i) {
    return positions[i];
  }

  final boolean deleted(int i) {
    return deleted[i];
  }

  /** Entry {@code i} as a new {@link KeyEntry}. */
  final KeyEntry entry(int i) {
    KeyEntry entry = new KeyEntry();
    entry.hlc = hlcs[i];
    entry.streamId = streams[i];
    entry.sequence = sequences[i];
    entry.batch = batches[i];
    entry.row = rows[i];
    entry.dataFile = files[i];
    entry.filePosition = positions[i];
    entry.deleted = deleted[i];
    return entry;
  }

  /** Copies the key bytes of entry {@code i} to {@code out} at {@code at}. */
  final void copyKey(int i, byte[] out, int at) {
    System.arraycopy(keyBytes, keyStarts[i], out, at, keyLengths[i]);
  }

  /** The index of the entry of {@code key} in table {@code tableUuid}, or -1. */
  final int find(String tableUuid, byte[] key, long hash) {
    return find(tableUuid, key, 0, key.length, hash);
  }

  /** Adds {@code entry} for a key not held yet. */
  final void add(String tableUuid, byte[] key, long hash, KeyEntry entry) {
    int i = append(tableUuid, hash, key.length);
    System.arraycopy(key, 0, keyBytes, keyStarts[i], key.length);
    set(i, entry.hlc, entry.streamId, entry.sequence, entry.batch, entry.row, entry.dataFile,
        entry.filePosition, entry.deleted);
  }

  /**
   * Adds entry {@code i} of {@code from} in place of the entry of the same key, or as a new
   * one; returns whether it was added.
   */
  final boolean put(IndexPage from, int i) {
    String table = from.tables[i];
    long hash = from.hashes[i];
    int at = find(table, from.keyBytes, from.keyStarts[i], from.keyLengths[i], hash);
    boolean added = at < 0;
    if (added) {
      at = append(table, hash, from.keyLengths[i]);
      from.copyKey(i, keyBytes, keyStarts[at]);
    }
    set(at, from.hlcs[i], from.streams[i], from.sequences[i], from.batches[i], from.rows[i],
        from.files[i], from.positions[i], from.deleted[i]);
    return added;
  }

  /**
   * Appends an entry of {@code keyLength} key bytes, to be filled in: its key bytes start at
   * {@code keyStarts[i]}, its fields are set with {@link #set}. Returns its index.
   */
  final int append(String tableUuid, long hash, int keyLength) {
    if (size == hashes.length) {
      grow(size * 2);
    }
    if (keyBytesUsed + keyLength > keyBytes.length) {
      keyBytes = Arrays.copyOf(keyBytes, Math.max(keyBytes.length * 2, keyBytesUsed + keyLength));
    }
    int i = size++;
    tables[i] = tableUuid;
    hashes[i] = hash;
    keyStarts[i] = keyBytesUsed;
    keyLengths[i] = keyLength;
    keyBytesUsed += keyLength;
    return i;
  }

  /** The array the key bytes of an {@link #append}ed entry go into, at its key start. */
  final byte[] keyArray() {
    return keyBytes;
  }

  final int keyStart(int i) {
    return keyStarts[i];
  }

  /** Sets the hash of entry {@code i} from its table and key bytes. */
  final void hashKey(int i) {
    hashes[i] = PageLayout.pageHash(tables[i],
        KeyHash.of(keyBytes, keyStarts[i], keyLengths[i]));
  }

  final void set(int i, long hlc, String stream, long sequence, int batch, int row, String file,
      long position, boolean isDeleted) {
    hlcs[i] = hlc;
    streams[i] = stream;
    sequences[i] = sequence;
    batches[i] = batch;
    rows[i] = row;
    files[i] = file;
    positions[i] = position;
    deleted[i] = isDeleted;
  }

  /**
   * Empties it, keeping its arrays; the strings it referenced stay referenced until overwritten
   * (they are shared instances of tables, streams and files).
   */
  void clear() {
    size = 0;
    keyBytesUsed = 0;
    slots = null;
    indexed = 0;
  }

  private int find(String tableUuid, byte[] bytes, int from, int length, long hash) {
    if (size <= SCANNED) {
      for (int i = 0; i < size; i++) {
        if (matches(i, tableUuid, bytes, from, length, hash)) {
          return i;
        }
      }
      return -1;
    }
    indexAll();
    int mask = slots.length - 1;
    for (int slot = home(hash, mask); slots[slot] != 0; slot = (slot + 1) & mask) {
      int i = slots[slot] - 1;
      if (matches(i, tableUuid, bytes, from, length, hash)) {
        return i;
      }
    }
    return -1;
  }

  private boolean matches(int i, String tableUuid, byte[] bytes, int from, int length,
      long hash) {
    return hashes[i] == hash && keyLengths[i] == length
        && Arrays.equals(keyBytes, keyStarts[i], keyStarts[i] + length, bytes, from,
            from + length)
        && (tables[i] == tableUuid || tables[i].equals(tableUuid));
  }

  private void grow(int capacity) {
    tables = Arrays.copyOf(tables, capacity);
    hashes = Arrays.copyOf(hashes, capacity);
    keyStarts = Arrays.copyOf(keyStarts, capacity);
    keyLengths = Arrays.copyOf(keyLengths, capacity);
    hlcs = Arrays.copyOf(hlcs, capacity);
    streams = Arrays.copyOf(streams, capacity);
    sequences = Arrays.copyOf(sequences, capacity);
    batches = Arrays.copyOf(batches, capacity);
    rows = Arrays.copyOf(rows, capacity);
    files = Arrays.copyOf(files, capacity);
    positions = Arrays.copyOf(positions, capacity);
    deleted = Arrays.copyOf(deleted, capacity);
  }

  /**
   * Where a probe starts: from the hash's high bits, as the entries of one page share its low
   * bits (the page number).
   */
  private static int home(long hash, int mask) {
    return (int) (hash >>> 32) & mask;
  }

  /** Brings the hash table up to every entry, rebuilt larger when half full. */
  private void indexAll() {
    if (slots == null || size * 2 > slots.length) {
      slots = new int[Integer.highestOneBit(size * 4 - 1)];
      indexed = 0;
    }
    int mask = slots.length - 1;
    for (; indexed < size; indexed++) {
      int slot = home(hashes[indexed], mask);
      while (slots[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = indexed + 1;
    }
  }
}
