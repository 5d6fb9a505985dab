package io.verglas.vector;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The ordinal of a row (data file, position) in an {@link OrdinalMap}: per data file its
 * positions sorted, searched by bisection. Holds 12 bytes per row besides the map.
 */
final class RowLookup {
  private final Map<String, Integer> fileNumbers = new HashMap<>();
  private final long[][] positions;
  private final int[][] ordinals;

  RowLookup(OrdinalMap map) {
    int files = map.fileCount();
    int[] counts = new int[files];
    for (int ordinal = 0; ordinal < map.size(); ordinal++) {
      counts[map.fileNumber(ordinal)]++;
    }
    positions = new long[files][];
    ordinals = new int[files][];
    for (int file = 0; file < files; file++) {
      fileNumbers.put(map.fileName(file), file);
      positions[file] = new long[counts[file]];
      ordinals[file] = new int[counts[file]];
      counts[file] = 0;
    }
    for (int ordinal = 0; ordinal < map.size(); ordinal++) {
      int file = map.fileNumber(ordinal);
      positions[file][counts[file]] = map.position(ordinal);
      ordinals[file][counts[file]++] = ordinal;
    }
    for (int file = 0; file < files; file++) {
      sortByPosition(file);
    }
  }

  /** The ordinal of the row, or -1 when the map does not hold it. */
  int ordinalOf(String file, long position) {
    Integer number = fileNumbers.get(file);
    if (number == null) {
      return -1;
    }
    int at = Arrays.binarySearch(positions[number], position);
    return at < 0 ? -1 : ordinals[number][at];
  }

  /** Rows of a file are usually listed in position order already; sorts them when not. */
  private void sortByPosition(int file) {
    long[] p = positions[file];
    for (int i = 1; i < p.length; i++) {
      if (p[i - 1] >= p[i]) {
        int[] o = ordinals[file];
        Integer[] order = IntStream.range(0, p.length).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingLong(j -> p[j]));
        positions[file] = Arrays.stream(order).mapToLong(j -> p[j]).toArray();
        ordinals[file] = Arrays.stream(order).mapToInt(j -> o[j]).toArray();
        return;
      }
    }
  }
}
