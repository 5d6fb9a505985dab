package io.verglas.query.lookup;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Type;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Pass one of a row group: its key columns decoded value by value with parquet-mr's column
 * readers (no record assembly, no boxing for integral keys: a row group of the materializer's
 * files holds up to hundreds of thousands of keys, and this loop is most of a lookup's CPU).
 * A row is a candidate when each key column's value is among the admitted keys' values of that
 * column (a sorted array for integral columns, a hash set otherwise); only a candidate's whole
 * key is built and checked against the admitted keys.
 */
final class KeyColumnScan {
  private final MessageType keySchema;
  private final List<Type> keyTypes;
  private final Set<List<Object>> admitted;

  KeyColumnScan(MessageType keySchema, List<Type> keyTypes, Set<List<Object>> admitted) {
    this.keySchema = keySchema;
    this.keyTypes = keyTypes;
    this.admitted = admitted;
  }

  /** Positions within the row group of the admitted keys' rows not deleted, ascending. */
  long[] matches(PageReadStore pages, String createdBy, long rowGroupOffset, PositionDeleteIndex deletes) {
    ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages,
        new RowMaterializer(keyTypes.size()).getRootConverter(), keySchema, createdBy);
    List<ColumnDescriptor> descriptors = keySchema.getColumns();
    int columns = descriptors.size();
    ColumnReader[] readers = new ColumnReader[columns];
    ValueTest[] tests = new ValueTest[columns];
    for (int k = 0; k < columns; k++) {
      readers[k] = store.getColumnReader(descriptors.get(k));
      tests[k] = test(k, descriptors.get(k).getPrimitiveType().getPrimitiveTypeName());
    }
    long[] rows = new long[8];
    int found = 0;
    Object[] key = new Object[columns];
    List<Object> probe = Arrays.asList(key);
    long count = pages.getRowCount();
    for (long i = 0; i < count; i++) {
      boolean candidate = true;
      for (int k = 0; k < columns; k++) {
        ColumnReader reader = readers[k];
        boolean present = reader.getCurrentDefinitionLevel() == descriptors.get(k).getMaxDefinitionLevel();
        if (candidate && present && tests[k].test(reader)) {
          key[k] = tests[k].value(reader);
        } else {
          candidate = false;
          if (present) {
            reader.skip();
          }
        }
        reader.consume();
      }
      if (candidate && admitted.contains(probe) && !deletes.isDeleted(rowGroupOffset + i)) {
        if (found == rows.length) {
          rows = Arrays.copyOf(rows, found * 2);
        }
        rows[found++] = i;
      }
    }
    return Arrays.copyOf(rows, found);
  }

  private ValueTest test(int k, PrimitiveTypeName physical) {
    Type type = keyTypes.get(k);
    switch (physical) {
      case INT64, INT32 -> {
        long[] values = admitted.stream().mapToLong(key -> ((Number) key.get(k)).longValue()).sorted().toArray();
        boolean int32 = physical == PrimitiveTypeName.INT32;
        return new ValueTest() {
          @Override
          public boolean test(ColumnReader reader) {
            return Arrays.binarySearch(values, int32 ? reader.getInteger() : reader.getLong()) >= 0;
          }

          @Override
          public Object value(ColumnReader reader) {
            return ColumnValues.keyForm(type, int32 ? (Object) reader.getInteger() : (Object) reader.getLong());
          }
        };
      }
      case BOOLEAN -> {
        return new Matching(column(k)) {
          @Override
          public Object value(ColumnReader reader) {
            return reader.getBoolean();
          }
        };
      }
      default -> {
        return new Matching(column(k)) {
          @Override
          public Object value(ColumnReader reader) {
            return reader.getBinary().copy();
          }
        };
      }
    }
  }

  private Set<Object> column(int k) {
    Set<Object> values = new HashSet<>();
    admitted.forEach(key -> values.add(key.get(k)));
    return values;
  }

  private interface ValueTest {
    boolean test(ColumnReader reader);

    /** The current value, in the form the admitted keys hold; called at most once per value. */
    Object value(ColumnReader reader);
  }

  /** A test by the value itself, against a set. */
  private abstract static class Matching implements ValueTest {
    private final Set<Object> values;

    Matching(Set<Object> values) {
      this.values = values;
    }

    @Override
    public boolean test(ColumnReader reader) {
      return values.contains(value(reader));   // a column reader decodes its current value once
    }
  }
}
