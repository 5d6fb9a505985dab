package io.verglas.query.lookup;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;

/**
 * Rows of flat primitive columns as arrays of their physical values ({@code Integer},
 * {@code Long}, {@code Boolean}, {@code Float}, {@code Double}, {@code Binary}), null where a
 * value is null. Each row is a new array; binaries are copied when the reader reuses their bytes.
 */
final class RowMaterializer extends RecordMaterializer<Object[]> {
  private final Root root;

  RowMaterializer(int columns) {
    this.root = new Root(columns);
  }

  @Override
  public Object[] getCurrentRecord() {
    return root.row;
  }

  @Override
  public GroupConverter getRootConverter() {
    return root;
  }

  private static final class Root extends GroupConverter {
    private final Column[] columns;
    private Object[] row;

    Root(int count) {
      columns = new Column[count];
      for (int i = 0; i < count; i++) {
        columns[i] = new Column(this, i);
      }
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return columns[fieldIndex];
    }

    @Override
    public void start() {
      row = new Object[columns.length];
    }

    @Override
    public void end() {}
  }

  private static final class Column extends PrimitiveConverter {
    private final Root root;
    private final int index;

    Column(Root root, int index) {
      this.root = root;
      this.index = index;
    }

    @Override
    public void addBinary(Binary value) {
      root.row[index] = value.copy();
    }

    @Override
    public void addBoolean(boolean value) {
      root.row[index] = value;
    }

    @Override
    public void addDouble(double value) {
      root.row[index] = value;
    }

    @Override
    public void addFloat(float value) {
      root.row[index] = value;
    }

    @Override
    public void addInt(int value) {
      root.row[index] = value;
    }

    @Override
    public void addLong(long value) {
      root.row[index] = value;
    }
  }
}
