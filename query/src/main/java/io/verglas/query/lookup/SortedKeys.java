package io.verglas.query.lookup;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The integral one-column key of a row group, decoded once and kept sorted with each value's row:
 * a warm lookup of the row group is then a binary search instead of decoding its key chunk again
 * (at 160 000 rows a group, decoding was most of a lookup). 12 bytes a row.
 */
final class SortedKeys {
  private final long[] keys;
  private final int[] rows;

  private SortedKeys(long[] keys, int[] rows) {
    this.keys = keys;
    this.rows = rows;
  }

  /** Whether a row group's key in {@code keySchema} can be kept this way. */
  static boolean applies(MessageType keySchema) {
    if (keySchema.getColumns().size() != 1) {
      return false;
    }
    PrimitiveTypeName physical = keySchema.getColumns().get(0).getPrimitiveType().getPrimitiveTypeName();
    return physical == PrimitiveTypeName.INT64 || physical == PrimitiveTypeName.INT32;
  }

  static SortedKeys decode(PageReadStore pages, MessageType keySchema, String createdBy) {
    ColumnDescriptor column = keySchema.getColumns().get(0);
    ColumnReader reader = new ColumnReadStoreImpl(pages, new RowMaterializer(1).getRootConverter(),
        keySchema, createdBy).getColumnReader(column);
    boolean int32 = column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
    int count = Math.toIntExact(pages.getRowCount());
    long[] values = new long[count];
    int[] rows = new int[count];
    int present = 0;
    for (int i = 0; i < count; i++) {
      if (reader.getCurrentDefinitionLevel() == column.getMaxDefinitionLevel()) {
        values[present] = int32 ? reader.getInteger() : reader.getLong();
        rows[present++] = i;
      }
      reader.consume();
    }
    long[] byValue = Arrays.copyOf(values, present);
    Integer[] order = IntStream.range(0, present).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.comparingLong(o -> byValue[o]));
    long[] sortedKeys = new long[present];
    int[] sortedRows = new int[present];
    for (int i = 0; i < present; i++) {
      sortedKeys[i] = byValue[order[i]];
      sortedRows[i] = rows[order[i]];
    }
    return new SortedKeys(sortedKeys, sortedRows);
  }

  int bytes() {
    return 64 + keys.length * 12;
  }

  /** Sends each row (within the row group) holding {@code key} to {@code rows}. */
  void rowsOf(long key, java.util.function.LongConsumer rowSink) {
    int at = Arrays.binarySearch(keys, key);
    if (at < 0) {
      return;
    }
    while (at > 0 && keys[at - 1] == key) {
      at--;
    }
    for (int i = at; i < keys.length && keys[i] == key; i++) {
      rowSink.accept(rows[i]);
    }
  }
}
