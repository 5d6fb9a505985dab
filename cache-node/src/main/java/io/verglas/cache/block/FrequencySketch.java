package io.verglas.cache.block;

/**
 * An approximate, aging access counter: a count-min sketch of 4-bit counters.
 *
 * <p>Design (after TinyLFU, Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient Cache
 * Admission Policy", ACM ToS 2017): each key maps to one counter in each of four rows; an access
 * increments the four counters (saturating at 15) and the estimate is their minimum, so
 * collisions can only over-estimate. After {@code 10 x width} increments every counter is halved,
 * so old popularity fades and the sketch follows a changing workload. Sixteen counters are packed
 * in a long; a row of a key uses one long and the key's hash picks the nibble in it.
 *
 * <p>Thread-safe by synchronization: an increment costs a few nanoseconds against a block fetch
 * of micro- to milliseconds.
 */
final class FrequencySketch {
  private static final long[] SEEDS = {
    0xc3a5c85c97cb3127L, 0xb492b66fbe98f273L, 0x9ae16a3b2f90404fL, 0xcbf29ce484222325L
  };
  private static final long RESET_MASK = 0x7777_7777_7777_7777L;
  static final int MAX_COUNT = 15;

  private final long[] table;
  private final int mask;
  private final int sampleSize;
  private int additions;

  /** A sketch sized for about {@code expectedEntries} distinct hot keys. */
  FrequencySketch(long expectedEntries) {
    long clamped = Math.max(16, Math.min(expectedEntries, 1L << 24));
    int width = (int) (Long.highestOneBit(clamped - 1) << 1);
    this.table = new long[width];
    this.mask = width - 1;
    this.sampleSize = 10 * width;
  }

  synchronized int frequency(long hash) {
    int min = MAX_COUNT;
    for (int row = 0; row < 4; row++) {
      min = Math.min(min, counter(hash, row));
    }
    return min;
  }

  synchronized void increment(long hash) {
    boolean added = false;
    for (int row = 0; row < 4; row++) {
      long mixed = mix(hash, row);
      int slot = (int) mixed & mask;
      int shift = nibble(mixed, row) << 2;
      if (((table[slot] >>> shift) & 0xF) < MAX_COUNT) {
        table[slot] += 1L << shift;
        added = true;
      }
    }
    if (added && ++additions >= sampleSize) {
      reset();
    }
  }

  /** Halves every counter (aging). */
  private void reset() {
    for (int i = 0; i < table.length; i++) {
      table[i] = (table[i] >>> 1) & RESET_MASK;
    }
    additions /= 2;
  }

  private int counter(long hash, int row) {
    long mixed = mix(hash, row);
    int slot = (int) mixed & mask;
    return (int) ((table[slot] >>> (nibble(mixed, row) << 2)) & 0xF);
  }

  /** Rows use disjoint nibbles of a long: row r takes one of nibbles 4r..4r+3. */
  private static int nibble(long mixed, int row) {
    return (row << 2) + (int) ((mixed >>> 60) & 3);
  }

  private static long mix(long hash, int row) {
    long x = (hash + SEEDS[row]) * 0x9E3779B97F4A7C15L;
    x ^= x >>> 31;
    x *= SEEDS[row] | 1;
    return x ^ (x >>> 29);
  }
}
