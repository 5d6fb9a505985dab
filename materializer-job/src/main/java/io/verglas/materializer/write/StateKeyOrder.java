package io.verglas.materializer.write;

import io.verglas.materializer.source.WalRow;

/**
 * Sorts one table's keyed rows into the order of their key index state keys within a key group:
 * by routing key length, then by routing key (Flink's string serializer writes the length first,
 * then each character below 128 as one byte; RocksDB orders state keys by their bytes).
 *
 * <p>Why not a comparator over the rows: comparing routing key strings dereferenced two rows and
 * two strings per comparison, cache misses that took a tenth of the flush thread. The routing
 * keys of one table share their prefix (the table UUID), so the characters after it, read when a
 * row arrives ({@link #high}, {@link #low}), decide nearly every comparison from two arrays of
 * longs; the strings are compared only when those are equal. (Routing keys longer than 254
 * characters may come out of the exact order, which costs only the locality it serves.)
 */
final class StateKeyOrder {
  private static final int INSERTION_SORT_BELOW = 16;

  private final WalRow[] rows;
  private final long[] high;
  private final long[] low;

  /** Orders indexes into {@code rows}, whose order words are at the same indexes. */
  StateKeyOrder(WalRow[] rows, long[] high, long[] low) {
    this.rows = rows;
    this.high = high;
    this.low = low;
  }

  /** The first order word of a routing key: its length, then 7 characters from {@code from}. */
  static long high(String routingKey, int from) {
    long word = (long) Math.min(routingKey.length(), 0xff) << 56;
    for (int i = 0; i < 7; i++) {
      word |= (long) charAt(routingKey, from + i) << (48 - 8 * i);
    }
    return word;
  }

  /** The second order word: the 8 characters after those of {@link #high}. */
  static long low(String routingKey, int from) {
    long word = 0;
    for (int i = 0; i < 8; i++) {
      word |= (long) charAt(routingKey, from + 7 + i) << (56 - 8 * i);
    }
    return word;
  }

  private static int charAt(String routingKey, int index) {
    return index < routingKey.length() ? routingKey.charAt(index) & 0xff : 0;
  }

  /** Sorts {@code indexes[from, to)} by the state key order of the rows they point at. */
  void sort(int[] indexes, int from, int to) {
    while (to - from >= INSERTION_SORT_BELOW) {
      int pivot = indexes[from + (to - from) / 2];
      int i = from;
      int j = to - 1;
      while (i <= j) {
        while (compare(indexes[i], pivot) < 0) {
          i++;
        }
        while (compare(indexes[j], pivot) > 0) {
          j--;
        }
        if (i <= j) {
          int swap = indexes[i];
          indexes[i++] = indexes[j];
          indexes[j--] = swap;
        }
      }
      // Recurse into the smaller side, loop on the larger: the stack stays logarithmic.
      if (j - from < to - i) {
        sort(indexes, from, j + 1);
        from = i;
      } else {
        sort(indexes, i, to);
        to = j + 1;
      }
    }
    for (int i = from + 1; i < to; i++) {
      int moving = indexes[i];
      int j = i - 1;
      while (j >= from && compare(indexes[j], moving) > 0) {
        indexes[j + 1] = indexes[j];
        j--;
      }
      indexes[j + 1] = moving;
    }
  }

  private int compare(int a, int b) {
    int order = Long.compareUnsigned(high[a], high[b]);
    if (order == 0) {
      order = Long.compareUnsigned(low[a], low[b]);
    }
    return order != 0 ? order : rows[a].routingKey.compareTo(rows[b].routingKey);
  }
}
