package io.verglas.cache.awareness;

/**
 * A map of 64-bit keys to 64-bit values in two primitive arrays: 16 bytes a slot, at most
 * three quarters full, so 21–43 bytes an entry and no object per entry.
 *
 * <p>Design: open addressing with linear probing over a power-of-two table; a slot is empty when
 * its key is 0, so key 0 is stored as {@link #ZERO_KEY} (callers pass hashes, for which this
 * only adds a collision). Removal shifts the rest of the probe run back, so no tombstones are
 * left. When it holds {@code max} keys, a new key replaces the occupant of the first filled slot
 * at or after its home slot: an arbitrary entry, forgotten. Not thread-safe.
 */
final class LongLongMap {
  static final long ZERO_KEY = 0x9E3779B97F4A7C15L;
  private static final int MIN_SLOTS = 16;

  private final int max;
  private long[] keys = new long[MIN_SLOTS];
  private long[] values = new long[MIN_SLOTS];
  private int size;

  LongLongMap(int max) {
    if (max <= 0) {
      throw new IllegalArgumentException("Invalid map bound: " + max);
    }
    this.max = max;
  }

  int size() {
    return size;
  }

  boolean containsKey(long key) {
    return keys[find(stored(key))] != 0;
  }

  /** The key's value, or {@code absent} if the map does not hold the key. */
  long get(long key, long absent) {
    int slot = find(stored(key));
    return keys[slot] != 0 ? values[slot] : absent;
  }

  void put(long key, long value) {
    long k = stored(key);
    int slot = find(k);
    if (keys[slot] == 0) {
      if (size >= max) {
        remove(firstFilled(slot));
        slot = find(k);
      } else if ((size + 1) * 4L > keys.length * 3L) {
        grow();
        slot = find(k);
      }
      keys[slot] = k;
      size++;
    }
    values[slot] = value;
  }

  void remove(long key) {
    int slot = find(stored(key));
    if (keys[slot] != 0) {
      remove(slot);
    }
  }

  private static long stored(long key) {
    return key == 0 ? ZERO_KEY : key;
  }

  /** The key's slot, or the empty slot where it would go. */
  private int find(long key) {
    int mask = keys.length - 1;
    int slot = home(key, mask);
    while (keys[slot] != 0 && keys[slot] != key) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private static int home(long key, int mask) {
    long mixed = key ^ (key >>> 32);
    return (int) (mixed ^ (mixed >>> 16)) & mask;
  }

  private int firstFilled(int from) {
    int slot = from;
    while (keys[slot] == 0) {
      slot = (slot + 1) & (keys.length - 1);
    }
    return slot;
  }

  /** Empties the slot and moves back the entries of its probe run that may fill it. */
  private void remove(int slot) {
    int mask = keys.length - 1;
    int hole = slot;
    int next = (hole + 1) & mask;
    while (keys[next] != 0) {
      int home = home(keys[next], mask);
      // the entry at next may move to the hole if its home is not in (hole, next]
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        keys[hole] = keys[next];
        values[hole] = values[next];
        hole = next;
      }
      next = (next + 1) & mask;
    }
    keys[hole] = 0;
    values[hole] = 0;
    size--;
  }

  private void grow() {
    long[] oldKeys = keys;
    long[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new long[oldKeys.length * 2];
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        int slot = find(oldKeys[i]);
        keys[slot] = oldKeys[i];
        values[slot] = oldValues[i];
      }
    }
  }
}
