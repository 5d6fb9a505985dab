package io.verglas.materializer.keyindex;

import io.verglas.materializer.MaterializerConfig;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The key index's heap cache: the {@link KeyEntry} of up to {@code capacity} primary keys, by
 * table and key bytes, in an array of longs (open addressing, linear probing), evicting by CLOCK
 * (second chance) once full.
 *
 * <p>Why not a general-purpose cache (Caffeine, which held the index before): every cached key
 * cost five objects (cache node, map node, key holder, key bytes, entry; some 190 bytes), which
 * the young collections copied while the index filled, and whose in-place updates, references
 * to a stream id and a file path, dirtied an old card on nearly every row (measured in the
 * materialize benchmark: the collector's threads took a tenth of the process's CPU, and a
 * look-up followed four dependent references, the flush thread's largest cost after RocksDB).
 * Here an entry is 64 bytes of the array, written as numbers ({@link CountedStrings} number the
 * strings) beside the first 16 bytes of its key; a key of at most 16 bytes (a number, a UUID,
 * a short string) costs no object at all, and a look-up reads one slot.
 *
 * <p>Why 64 bytes: a slot is one CPU cache line, so that a look-up and the update that follows
 * it touch one line, not two (at 72 bytes nearly every slot straddled two lines), and the array
 * is 11% smaller. The flush benchmark did not resolve a speed difference (3 034 ± 135 against
 * 3 060 ± 232 ns per row); the memory is what is sure. The slots start at the array's
 * seventh long, which is the first byte of a line when the array starts a line: the arrays of
 * caches large enough for this to matter are humongous objects, which the G1 collector places
 * at the start of a region, and an array's elements start 16 bytes in (with compressed class
 * pointers). Elsewhere a slot straddles two lines, which costs time, never correctness.
 *
 * <p>Eviction: each slot has a reference bit, set when its entry is read or written; once the
 * cache holds {@code capacity} entries, an insert first advances a hand over the slots, clearing
 * set bits, and evicts the first entry whose bit is clear. Keys written again and again keep
 * their entries; keys not touched for a full turn of the hand lose theirs. An entry written
 * {@code pinned} is never evicted until {@link #unpin}ned: the index pins what it has not yet
 * written back, and keeps fewer entries pinned than the cache holds.
 *
 * <p>Slots move (an eviction shifts the entries of its probe run back, growth rehashes): a slot
 * number is valid until {@link #version()} changes. Not thread-safe.
 */
final class KeyEntryCache {
  /** Entries a cache may hold at most: its array of longs must stay indexable by an int. */
  static final int MAX_CAPACITY = MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_MAX;
  /** Tables whose entries one cache holds at most: numbers that fit {@link #HEADER}. */
  static final int MAX_TABLES = (1 << 24) - 1;
  private static final int STRIDE = 8;
  /** The longs before the first slot: see the class comment. */
  private static final int PAD = 6;
  /**
   * The key's hash (high half), table number (bits 8-31), key length (bits 3-7) and flags (bits
   * 0-1); 0 in an empty slot (table numbers start at 1).
   */
  private static final int HEADER = 0;
  private static final int HLC = 1;
  private static final int SEQUENCE = 2;
  private static final int FILE_POSITION = 3;
  private static final int BATCH_ROW = 4;
  private static final int STRINGS = 5;
  /** The first 16 key bytes, big-endian, zero-padded; a longer key lives in {@link #keys}. */
  private static final int KEY = 6;
  private static final long DELETED = 1;
  private static final long REFERENCED = 2;
  /** The entry is not yet in the index's stored pages: it must not be evicted. */
  private static final long PINNED = 4;
  private static final long FLAGS = 0x7;
  private static final int INLINE_KEY_BYTES = 16;
  /** The key length field of a key kept in {@link #keys}. */
  private static final int LONG_KEY = 0x1f;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final int MIN_SLOTS = 1024;
  /** Entries per slot at most: longer probe runs cost more than the memory they save. */
  private static final double MAX_LOAD = 0.75;

  private final int capacity;
  private final int maxSlots;
  private final int maxTables;
  private final CountedStrings tables = new CountedStrings();
  private final CountedStrings streams = new CountedStrings();
  private final CountedStrings files = new CountedStrings();
  private long[] words;
  /** By slot: the keys longer than {@value #INLINE_KEY_BYTES} bytes; null until there is one. */
  private byte[][] keys;
  private int mask;
  private int size;
  private int hand;
  private int version;
  private long evictions;

  KeyEntryCache(int capacity) {
    this(capacity, MAX_TABLES);
  }

  /** A cache holding the entries of at most {@code maxTables} tables at a time (for tests). */
  KeyEntryCache(int capacity, int maxTables) {
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("A key index cache holds 1 to " + MAX_CAPACITY
          + " entries, not " + capacity);
    }
    this.capacity = capacity;
    this.maxTables = Math.min(maxTables, MAX_TABLES);
    this.maxSlots = Integer.highestOneBit((int) Math.ceil(capacity / MAX_LOAD) * 2 - 1);
    allocate(Math.min(MIN_SLOTS, maxSlots));
  }

  /** The slot holding the entry of {@code key} in table {@code tableUuid}, or -1. */
  int find(String tableUuid, byte[] key) {
    int table = tables.numberIfHeld(tableUuid);
    if (table == 0) {
      return -1;
    }
    long identity = identity(table, key);
    long first = word(key, 0);
    long second = word(key, 8);
    for (int slot = home(identity); ; slot = (slot + 1) & mask) {
      int base = base(slot);
      long header = words[base + HEADER];
      if (header == 0) {
        return -1;
      }
      if ((header & ~FLAGS) == identity
          && words[base + KEY] == first && words[base + KEY + 1] == second
          && (key.length <= INLINE_KEY_BYTES || Arrays.equals(keys[slot], key))) {
        return slot;
      }
    }
  }

  /** The entry in {@code slot} (a new object); counts as a use of it for eviction. */
  KeyEntry entry(int slot) {
    int base = base(slot);
    words[base + HEADER] |= REFERENCED;
    KeyEntry entry = new KeyEntry();
    entry.hlc = words[base + HLC];
    entry.sequence = words[base + SEQUENCE];
    entry.filePosition = words[base + FILE_POSITION];
    long batchRow = words[base + BATCH_ROW];
    entry.batch = (int) (batchRow >>> 32);
    entry.row = (int) batchRow;
    long strings = words[base + STRINGS];
    entry.streamId = streams.get((int) (strings >>> 32));
    entry.dataFile = files.get((int) strings);
    entry.deleted = (words[base + HEADER] & DELETED) != 0;
    return entry;
  }

  /** Replaces the entry in {@code slot} (found since the last {@link #version()} change). */
  void update(int slot, KeyEntry entry) {
    update(slot, entry, false);
  }

  /**
   * Replaces the entry in {@code slot}; a {@code pinned} one stays until {@link #unpin}ned (an
   * entry pinned before stays pinned).
   */
  void update(int slot, KeyEntry entry, boolean pinned) {
    int base = base(slot);
    long previous = words[base + STRINGS];
    long header = words[base + HEADER];
    write(base, entry, header & ~FLAGS, pinned || (header & PINNED) != 0);
    releaseStrings(previous);
  }

  /** Lets the entry in {@code slot} be evicted again. */
  void unpin(int slot) {
    words[base(slot) + HEADER] &= ~PINNED;
  }

  /**
   * Caches {@code entry} for {@code key} of table {@code tableUuid}, which the cache does not
   * hold; returns whether that cost the cache an entry: another one evicted to make room, or
   * this one not taken (its table would be one more than {@code maxTables}). The key bytes must
   * not change afterwards.
   */
  boolean insert(String tableUuid, byte[] key, KeyEntry entry) {
    return insert(tableUuid, key, entry, false);
  }

  /** {@link #insert(String, byte[], KeyEntry)}, {@code pinned} as in {@link #update}. */
  boolean insert(String tableUuid, byte[] key, KeyEntry entry, boolean pinned) {
    int table = tables.hold(tableUuid);
    if (table > maxTables) {
      tables.release(table);
      return true;
    }
    boolean evicting = size == capacity;
    if (evicting) {
      evict();
    } else if (size + 1 > (mask + 1) * MAX_LOAD && mask + 1 < maxSlots) {
      allocate((mask + 1) * 2);
    }
    long identity = identity(table, key);
    int slot = emptySlotFor(identity);
    int base = base(slot);
    write(base, entry, identity, pinned);
    words[base + KEY] = word(key, 0);
    words[base + KEY + 1] = word(key, 8);
    if (key.length > INLINE_KEY_BYTES) {
      if (keys == null) {
        keys = new byte[mask + 1][];
      }
      keys[slot] = key;
    }
    size++;
    return evicting;
  }

  /** Changes whenever slots move: slot numbers found before then are no longer valid. */
  int version() {
    return version;
  }

  int size() {
    return size;
  }

  long evictions() {
    return evictions;
  }

  /** How many distinct strings (tables, streams, files) the cached entries hold. */
  int heldStrings() {
    return tables.size() + streams.size() + files.size();
  }

  /** Writes the entry's fields into the slot at {@code base}, with its {@link #identity}. */
  private void write(int base, KeyEntry entry, long identity, boolean pinned) {
    words[base + HLC] = entry.hlc;
    words[base + SEQUENCE] = entry.sequence;
    words[base + FILE_POSITION] = entry.filePosition;
    words[base + BATCH_ROW] = ((long) entry.batch << 32) | Integer.toUnsignedLong(entry.row);
    words[base + STRINGS] = ((long) streams.hold(entry.streamId) << 32)
        | Integer.toUnsignedLong(files.hold(entry.dataFile));
    words[base + HEADER] = identity | REFERENCED | (entry.deleted ? DELETED : 0)
        | (pinned ? PINNED : 0);
  }

  /** Lets go of the stream and file an entry's {@link #STRINGS} word held. */
  private void releaseStrings(long strings) {
    streams.release((int) (strings >>> 32));
    files.release((int) strings);
  }

  private int tableOf(int slot) {
    return (int) (words[base(slot) + HEADER] >>> 8) & MAX_TABLES;
  }

  /**
   * The {@link #HEADER} of the key's entry without its flags: a hash of the key bytes and table
   * number, the table number and the key length. Never 0 (table numbers start at 1).
   */
  private static long identity(int table, byte[] key) {
    int length = key.length <= INLINE_KEY_BYTES ? key.length : LONG_KEY;
    long hash = KeyHash.of(key) ^ (table * 0x9E3779B97F4A7C15L);
    return (hash & 0xffff_ffff_0000_0000L) | ((long) table << 8) | ((long) length << 3);
  }

  /** The slot a probe for the entry with {@code header} starts at. */
  private int home(long header) {
    return (int) (header >>> 32) & mask;
  }

  /** Where {@code slot} starts in {@link #words}. */
  private static int base(int slot) {
    return PAD + slot * STRIDE;
  }

  /** Eight key bytes from {@code from}, big-endian, zero past the key's end. */
  private static long word(byte[] key, int from) {
    if (key.length >= from + Long.BYTES) {
      return (long) LONGS.get(key, from);
    }
    long word = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      word = (word << 8) | (from + i < key.length ? key[from + i] & 0xff : 0);
    }
    return word;
  }

  /**
   * Advances the hand to the first entry neither used since its last pass nor pinned, and
   * evicts it.
   */
  private void evict() {
    while (true) {
      int base = base(hand);
      if (words[base + HEADER] != 0 && (words[base + HEADER] & PINNED) == 0) {
        if ((words[base + HEADER] & REFERENCED) == 0) {
          remove(hand);
          evictions++;
          return; // the hand stays: the slot now holds the next entry of the run, or none
        }
        words[base + HEADER] &= ~REFERENCED;
      }
      hand = (hand + 1) & mask;
    }
  }

  /**
   * Empties {@code slot}, moving the entries after it in its probe run back where their home
   * slot allows, so that no look-up meets an empty slot before its key.
   */
  private void remove(int slot) {
    releaseStrings(words[base(slot) + STRINGS]);
    tables.release(tableOf(slot));
    int hole = slot;
    for (int next = (slot + 1) & mask; words[base(next) + HEADER] != 0;
        next = (next + 1) & mask) {
      int home = home(words[base(next) + HEADER]);
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        System.arraycopy(words, base(next), words, base(hole), STRIDE);
        if (keys != null) {
          keys[hole] = keys[next];
        }
        hole = next;
      }
    }
    Arrays.fill(words, base(hole), base(hole) + STRIDE, 0L);
    if (keys != null) {
      keys[hole] = null;
    }
    size--;
    version++;
  }

  /** Sets up {@code slots} slots and moves every cached entry into them. */
  private void allocate(int slots) {
    long[] oldWords = words;
    byte[][] oldKeys = keys;
    int oldSlots = oldWords == null ? 0 : mask + 1;
    words = new long[base(slots)];
    keys = oldKeys == null ? null : new byte[slots][];
    mask = slots - 1;
    hand = 0;
    version++;
    for (int old = 0; old < oldSlots; old++) {
      long header = oldWords[base(old) + HEADER];
      if (header == 0) {
        continue;
      }
      int slot = emptySlotFor(header);
      System.arraycopy(oldWords, base(old), words, base(slot), STRIDE);
      if (keys != null) {
        keys[slot] = oldKeys[old];
      }
    }
  }

  /** The first empty slot of the probe run of {@code header} (the table has room). */
  private int emptySlotFor(long header) {
    int slot = home(header);
    while (words[base(slot) + HEADER] != 0) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }
}
