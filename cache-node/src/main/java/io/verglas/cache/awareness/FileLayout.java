package io.verglas.cache.awareness;

import io.verglas.cache.parquet.ParquetFooter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the index knows of one data file: its table and partition, the sequence number of the
 * commit that added it (where its snapshot range starts; the index's generations say where it
 * ends), and the byte ranges of its column chunks (from its Parquet footer), sorted by offset,
 * each with the coordinates a read of it is counted under.
 *
 * <p>Design: immutable and built once, off the request path, so {@link #classify} is a binary
 * search and a short scan over arrays, allocating nothing (the coordinates are shared instances
 * built here). Chunks of one column in several row groups share one coordinates instance.
 */
final class FileLayout {
  private final String table;
  private final String partition;
  private final String location;
  private final long sizeBytes;
  private final long addedSequenceNumber;
  private final long[] starts;
  private final long[] ends;
  private final HeatCoordinates[] columns;
  private final HeatCoordinates wholeFile;

  private FileLayout(String table, String partition, String location, long sizeBytes,
      long addedSequenceNumber, List<ParquetFooter.ColumnChunk> unsorted) {
    this.table = table;
    this.partition = partition;
    this.location = location;
    this.sizeBytes = sizeBytes;
    this.addedSequenceNumber = addedSequenceNumber;
    List<ParquetFooter.ColumnChunk> chunks = new ArrayList<>(unsorted);
    chunks.sort(Comparator.comparingLong(ParquetFooter.ColumnChunk::start));
    Map<String, HeatCoordinates> byColumn = new LinkedHashMap<>();
    this.starts = new long[chunks.size()];
    this.ends = new long[chunks.size()];
    this.columns = new HeatCoordinates[chunks.size()];
    for (int i = 0; i < chunks.size(); i++) {
      ParquetFooter.ColumnChunk chunk = chunks.get(i);
      starts[i] = chunk.start();
      ends[i] = chunk.end();
      columns[i] = byColumn.computeIfAbsent(chunk.path(), c -> new HeatCoordinates(table, partition, c));
    }
    this.wholeFile = new HeatCoordinates(table, partition, HeatCoordinates.WHOLE_FILE);
  }

  /** A file whose layout is unknown (not Parquet, or no footer): reads count against the whole file. */
  static FileLayout opaque(String table, String partition, String location, long sizeBytes) {
    return opaque(table, partition, location, sizeBytes, 0);
  }

  /** The layout of a Parquet file from its parsed footer. */
  static FileLayout parquet(String table, String partition, String location, long sizeBytes,
      long addedSequenceNumber, ParquetFooter footer) {
    List<ParquetFooter.ColumnChunk> chunks = new ArrayList<>();
    for (ParquetFooter.RowGroup group : footer.rowGroups()) {
      chunks.addAll(group.columns());
    }
    return new FileLayout(table, partition, location, sizeBytes, addedSequenceNumber, chunks);
  }

  /** The layout of a file with these column chunks (of any row groups, in any order). */
  static FileLayout of(String table, String partition, String location, long sizeBytes,
      List<ParquetFooter.ColumnChunk> chunks) {
    return new FileLayout(table, partition, location, sizeBytes, 0, chunks);
  }

  /** As {@link #opaque(String, String, String, long)}, for a file added at that sequence number. */
  static FileLayout opaque(String table, String partition, String location, long sizeBytes,
      long addedSequenceNumber) {
    return new FileLayout(table, partition, location, sizeBytes, addedSequenceNumber, List.of());
  }

  String table() {
    return table;
  }

  String partition() {
    return partition;
  }

  /** The file's location as metadata names it. */
  String location() {
    return location;
  }

  /** The file's size from metadata. */
  long sizeBytes() {
    return sizeBytes;
  }

  /** Sequence number of the commit that added the file (0 when unknown). */
  long addedSequenceNumber() {
    return addedSequenceNumber;
  }

  int chunkCount() {
    return starts.length;
  }

  long chunkStart(int i) {
    return starts[i];
  }

  long chunkEnd(int i) {
    return ends[i];
  }

  HeatCoordinates chunkColumn(int i) {
    return columns[i];
  }

  /** What reads of a file without chunks count against. */
  HeatCoordinates wholeFile() {
    return wholeFile;
  }

  /**
   * Hands {@code sink} the coordinates of every column chunk that bytes {@code [first, last]}
   * overlap (a chunk per overlap, so a read across two row groups of a column counts twice);
   * nothing for a read of the footer alone. A file without chunks counts as a whole.
   */
  void classify(long first, long last, Consumer<HeatCoordinates> sink) {
    classify(first, last, false, sink);
  }

  /**
   * Like {@link #classify}, for a read cut short after byte {@code last}: the chunk the read
   * began in counts, a chunk after it only if it ends by {@code last} (one delivered in part is
   * most likely what socket buffers held when the client stopped, not what it read).
   */
  void classifyCutShort(long first, long last, Consumer<HeatCoordinates> sink) {
    classify(first, last, true, sink);
  }

  private void classify(long first, long last, boolean onlyWholeAfterFirst, Consumer<HeatCoordinates> sink) {
    if (starts.length == 0) {
      sink.accept(wholeFile);
      return;
    }
    int begin = firstEndingAfter(first);
    for (int i = begin; i < starts.length && starts[i] <= last; i++) {
      if (onlyWholeAfterFirst && i > begin && ends[i] > last + 1) {
        return;
      }
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
