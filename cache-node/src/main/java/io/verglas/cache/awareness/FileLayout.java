package io.verglas.cache.awareness;

import io.verglas.cache.parquet.ParquetFooter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the index knows of one data file: its table and partition, and the byte ranges of its
 * column chunks (from its Parquet footer), sorted by offset, each with the coordinates a read of
 * it is counted under.
 *
 * <p>Design: immutable and built once, off the request path, so {@link #classify} is a binary
 * search and a short scan over arrays, allocating nothing (the coordinates are shared instances
 * built here). Chunks of one column in several row groups share one coordinates instance.
 *
 * @param location the file's location as metadata names it
 * @param sizeBytes the file's size from metadata
 */
record FileLayout(String table, String partition, String location, long sizeBytes,
    long[] starts, long[] ends, HeatCoordinates[] columns, HeatCoordinates wholeFile) {

  /** A file whose layout is unknown (not Parquet, or no footer): reads count against the whole file. */
  static FileLayout opaque(String table, String partition, String location, long sizeBytes) {
    return new FileLayout(table, partition, location, sizeBytes, new long[0], new long[0],
        new HeatCoordinates[0], new HeatCoordinates(table, partition, HeatCoordinates.WHOLE_FILE));
  }

  /** The layout of a Parquet file from its parsed footer. */
  static FileLayout parquet(String table, String partition, String location, long sizeBytes,
      ParquetFooter footer) {
    List<ParquetFooter.ColumnChunk> chunks = new ArrayList<>();
    for (ParquetFooter.RowGroup group : footer.rowGroups()) {
      chunks.addAll(group.columns());
    }
    return of(table, partition, location, sizeBytes, chunks);
  }

  /** The layout of a file with these column chunks (of any row groups, in any order). */
  static FileLayout of(String table, String partition, String location, long sizeBytes,
      List<ParquetFooter.ColumnChunk> unsorted) {
    Map<String, HeatCoordinates> byColumn = new LinkedHashMap<>();
    List<ParquetFooter.ColumnChunk> chunks = new ArrayList<>(unsorted);
    chunks.sort(Comparator.comparingLong(ParquetFooter.ColumnChunk::start));
    long[] starts = new long[chunks.size()];
    long[] ends = new long[chunks.size()];
    HeatCoordinates[] columns = new HeatCoordinates[chunks.size()];
    for (int i = 0; i < chunks.size(); i++) {
      ParquetFooter.ColumnChunk chunk = chunks.get(i);
      starts[i] = chunk.start();
      ends[i] = chunk.end();
      columns[i] = byColumn.computeIfAbsent(chunk.path(), c -> new HeatCoordinates(table, partition, c));
    }
    return new FileLayout(table, partition, location, sizeBytes, starts, ends, columns,
        new HeatCoordinates(table, partition, HeatCoordinates.WHOLE_FILE));
  }

  int chunkCount() {
    return starts.length;
  }

  /**
   * Hands {@code sink} the coordinates of every column chunk that bytes {@code [first, last]}
   * overlap (a chunk per overlap, so a read across two row groups of a column counts twice);
   * nothing for a read of the footer alone. A file without chunks counts as a whole.
   */
  void classify(long first, long last, Consumer<HeatCoordinates> sink) {
    if (starts.length == 0) {
      sink.accept(wholeFile);
      return;
    }
    int i = firstEndingAfter(first);
    for (; i < starts.length && starts[i] <= last; i++) {
      sink.accept(columns[i]);
    }
  }

  /** The first chunk whose end lies beyond {@code offset} (chunks do not overlap: ends ascend). */
  private int firstEndingAfter(long offset) {
    int low = 0;
    int high = starts.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (ends[mid] <= offset) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }
}
