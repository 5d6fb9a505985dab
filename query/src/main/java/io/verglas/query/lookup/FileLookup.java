package io.verglas.query.lookup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Finds the rows of some keys in one data file, in two passes per row group.
 *
 * <p>Design: a row group is read only when, for some key, every key column's chunk statistics
 * and bloom filter admit the key's value (the materializer's files hold keys in arrival order,
 * so statistics rarely prune and the bloom filter does the work). Pass one decodes the key
 * columns of that row group ({@link KeyColumnScan}; a one-column integral key is decoded once and
 * then kept sorted, {@link SortedKeys}) and collects the positions of matching rows that the
 * file's position deletes (its deletion vector) do not delete. Pass two reads the
 * projected columns of exactly those rows: a row range built from a position makes parquet-mr
 * fetch, through each column's offset index, only the page that holds it, and skip to the row
 * inside. A key's cost is therefore its key-column chunk plus one page per projected column,
 * not the row group. (The materializer's files do not sort keys, so the key column's own column
 * index cannot narrow pass one to pages.)
 */
final class FileLookup {
  private static final ColumnIOFactory COLUMN_IO = new ColumnIOFactory();

  private final ParquetFiles.Reader reader;
  private final FileColumns columns;
  private final List<Types.NestedField> keyFields;
  private final Schema projection;
  private final MessageType keySchema;
  private final MessageType rowSchema;

  FileLookup(ParquetFiles.Reader reader, FileColumns columns, List<Types.NestedField> keyFields, Schema projection) {
    this.reader = reader;
    this.columns = columns;
    this.keyFields = keyFields;
    this.projection = projection;
    this.keySchema = columns.select(keyFields);
    this.rowSchema = columns.select(projection.columns());
  }

  /**
   * Sends the live rows of {@code keys} (each the key columns' Parquet values, in key order) to
   * {@code sink}; returns false when the sink asked to stop.
   */
  boolean read(List<List<Object>> keys, PositionDeleteIndex deletes, Predicate<Record> sink) {
    List<BlockMetaData> blocks = reader.footer().getBlocks();
    try {
      for (int b = 0; b < blocks.size(); b++) {
        Set<List<Object>> admitted = admitted(b, blocks.get(b), keys);
        if (admitted.isEmpty()) {
          continue;
        }
        long[] rows = matchingRows(b, blocks.get(b), admitted, deletes);
        if (rows.length > 0 && !emit(b, blocks.get(b), rows, sink)) {
          return false;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + reader.path + ": " + e.getMessage(), e);
    }
    return true;
  }

  /** The keys that the row group's key-column statistics and bloom filters admit. */
  private Set<List<Object>> admitted(int b, BlockMetaData block, List<List<Object>> keys) {
    Map<String, ColumnChunkMetaData> chunks = new HashMap<>();
    block.getColumns().forEach(chunk -> chunks.put(chunk.getPath().toDotString(), chunk));
    ColumnChunkMetaData[] keyChunks = new ColumnChunkMetaData[keyFields.size()];
    for (int k = 0; k < keyChunks.length; k++) {
      PrimitiveType column = columns.column(keyFields.get(k));
      keyChunks[k] = chunks.get(column.getName());
    }
    Set<List<Object>> admitted = new HashSet<>();
    for (List<Object> key : keys) {
      if (admits(b, keyChunks, key)) {
        admitted.add(key);
      }
    }
    return admitted;
  }

  private boolean admits(int b, ColumnChunkMetaData[] keyChunks, List<Object> key) {
    for (int k = 0; k < keyChunks.length; k++) {
      ColumnChunkMetaData chunk = keyChunks[k];
      Object value = key.get(k);
      if (chunk == null) {
        return false;
      }
      if (!inRange(chunk.getStatistics(), value)) {
        return false;
      }
      Optional<BloomFilter> bloom = reader.bloom(b, chunk);
      if (bloom.isPresent() && !bloom.get().findHash(bloom.get().hash(value))) {
        return false;
      }
    }
    return true;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static boolean inRange(Statistics stats, Object value) {
    if (stats == null || stats.isEmpty()) {
      return true;
    }
    if (!stats.hasNonNullValue()) {
      return false;   // only nulls: no key
    }
    Object min = stats.genericGetMin();
    if (!min.getClass().isInstance(value) && !value.getClass().isInstance(min)) {
      return true;   // a promoted column: its statistics are of the narrower type
    }
    return stats.comparator().compare(min, value) <= 0 && stats.comparator().compare(value, stats.genericGetMax()) <= 0;
  }

  /** Pass one: positions within the row group of the admitted keys' live rows, ascending. */
  private long[] matchingRows(int b, BlockMetaData block, Set<List<Object>> admitted,
      PositionDeleteIndex deletes) throws IOException {
    if (SortedKeys.applies(keySchema)) {
      SortedKeys sorted = reader.sortedKeys(b, () -> decodeKeys(b));
      LongStream.Builder rows = LongStream.builder();
      long offset = block.getRowIndexOffset();
      for (List<Object> key : admitted) {
        sorted.rowsOf(((Number) key.get(0)).longValue(), row -> {
          if (!deletes.isDeleted(offset + row)) {
            rows.add(row);
          }
        });
      }
      return rows.build().sorted().distinct().toArray();
    }
    reader.file.setRequestedSchema(keySchema);
    PageReadStore pages = reader.file.readRowGroup(b);
    return new KeyColumnScan(keySchema, keyFields.stream().map(Types.NestedField::type).toList(), admitted)
        .matches(pages, reader.footer().getFileMetaData().getCreatedBy(), block.getRowIndexOffset(), deletes);
  }

  private SortedKeys decodeKeys(int b) {
    try {
      reader.file.setRequestedSchema(keySchema);
      return SortedKeys.decode(reader.file.readRowGroup(b), keySchema, reader.footer().getFileMetaData().getCreatedBy());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the keys of " + reader.path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Pass two: the projected columns of {@code rows} only, as records of the projection. One
   * read per row: parquet-mr's synchronizing column readers answered a wrong row for the second
   * of two ranges in different pages of a row group (parquet-mr 1.17.1, found by the randomized
   * test), while a single range is read right; a lookup has few rows per row group.
   */
  private boolean emit(int b, BlockMetaData block, long[] rows, Predicate<Record> sink) throws IOException {
    reader.file.setRequestedSchema(rowSchema);
    MessageColumnIO io = COLUMN_IO.getColumnIO(rowSchema);
    int[] fileIndex = fileIndexes();
    List<Types.NestedField> fields = projection.columns();
    for (long row : rows) {
      RowRanges range = RowRanges.create(block.getRowCount(), IntStream.of(0).iterator(),
          new RowsAsPages(new long[] {row}));
      PageReadStore pages = reader.file.readFilteredRowGroup(b, range);
      RecordReader<Object[]> records = io.getRecordReader(pages, new RowMaterializer(rowSchema.getFieldCount()));
      // without row indexes parquet-mr read the whole row group (a one-row group, or no index)
      long skip = pages.getRowIndexes().isPresent() ? 0 : row;
      for (long i = 0; i < skip; i++) {
        records.read();
      }
      Object[] raw = records.read();
      GenericRecord record = GenericRecord.create(projection.asStruct());
      for (int p = 0; p < fields.size(); p++) {
        record.set(p, fileIndex[p] < 0 ? null : ColumnValues.toGeneric(fields.get(p).type(), raw[fileIndex[p]]));
      }
      if (!sink.test(record)) {
        return false;
      }
    }
    return true;
  }

  /** For each projected field, its index in the requested row schema, or -1 when the file lacks it. */
  private int[] fileIndexes() {
    List<Types.NestedField> fields = projection.columns();
    int[] indexes = new int[fields.size()];
    int next = 0;
    for (int p = 0; p < fields.size(); p++) {
      indexes[p] = columns.column(fields.get(p)) == null ? -1 : next++;
    }
    return indexes;
  }
}
