package io.verglas.materializer.data;

import io.verglas.row.RowDecoder;
import io.verglas.row.RowFields;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * Writes WAL row payloads ({@code RowCodec} bytes) into Parquet, value by value from the bytes.
 *
 * <p>Why not Iceberg records and its generic writer: decoding a payload into a record boxed every
 * number and decoded every string, and the writer then unboxed them and encoded the strings back
 * to the bytes the payload held (measured in the materialize benchmark: the decode was a tenth of
 * the flush thread, its boxes and strings a fifth of the flush and data-writer threads'
 * allocations; {@code DataFileWriteBenchmark} compares both ways per row).
 *
 * <p>The files are the ones Iceberg's generic writer makes of the same rows: the same Parquet
 * schema (Iceberg's, from the table schema), the same physical value per type (dates as days,
 * times and timestamps as microseconds, UUIDs as 16 big-endian bytes, decimals through Iceberg's
 * own decimal writers), nulls at the definition level below the column's, and the metrics of
 * float and double columns that Iceberg reads from the writer (NaN, value and null counts). It
 * copies top-level primitive columns only; tables with list or struct columns go through
 * records (see {@link #create}).
 */
final class PayloadParquetWriter implements ParquetValueWriter<byte[]> {
  /** The column types whose values are copied from the payload. */
  private static final Set<Type.TypeID> COPIED = EnumSet.of(Type.TypeID.BOOLEAN,
      Type.TypeID.INTEGER, Type.TypeID.DATE, Type.TypeID.LONG, Type.TypeID.TIME,
      Type.TypeID.TIMESTAMP, Type.TypeID.FLOAT, Type.TypeID.DOUBLE, Type.TypeID.STRING,
      Type.TypeID.BINARY, Type.TypeID.FIXED, Type.TypeID.UUID, Type.TypeID.DECIMAL);
  private final RowFields fields;
  private final Column[] columns;
  private final int[] offsets;

  private PayloadParquetWriter(Schema schema, MessageType parquetSchema) {
    this.fields = new RowFields(schema);
    List<Types.NestedField> schemaColumns = schema.columns();
    this.columns = new Column[schemaColumns.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = Column.of(schemaColumns.get(i), parquetSchema.getColumns().get(i));
    }
    this.offsets = new int[columns.length];
  }

  /**
   * The writer of {@code schema}'s payloads into files of {@code parquetSchema} (Iceberg's
   * conversion of it): this one when every column is a primitive it copies, otherwise (a list or
   * struct column) one that decodes each payload into a record for Iceberg's generic writer.
   */
  static ParquetValueWriter<byte[]> create(Schema schema, MessageType parquetSchema) {
    boolean direct = schema.columns().stream().allMatch(field -> COPIED.contains(
        field.type().typeId())) && parquetSchema.getColumns().size() == schema.columns().size();
    if (direct) {
      return new PayloadParquetWriter(schema, parquetSchema);
    }
    return new Decoding(new RowDecoder(schema), GenericParquetWriter.create(schema,
        parquetSchema));
  }

  @Override
  public void write(int repetitionLevel, byte[] row) {
    fields.locate(row, offsets);
    for (int i = 0; i < columns.length; i++) {
      columns[i].write(repetitionLevel, row, offsets[i]);
    }
  }

  @Override
  public List<TripleWriter<?>> columns() {
    return Arrays.stream(columns).flatMap(column -> column.writer.columns().stream()).toList();
  }

  @Override
  public void setColumnStore(ColumnWriteStore columnStore) {
    for (Column column : columns) {
      column.writer.setColumnStore(columnStore);
    }
  }

  @Override
  public Stream<FieldMetrics<?>> metrics() {
    return Arrays.stream(columns).flatMap(Column::metrics);
  }

  /** Payloads decoded into records for Iceberg's generic writer. */
  private record Decoding(RowDecoder decoder, ParquetValueWriter<Record> records)
      implements ParquetValueWriter<byte[]> {
    @Override
    public void write(int repetitionLevel, byte[] row) {
      records.write(repetitionLevel, decoder.decode(row));
    }

    @Override
    public List<TripleWriter<?>> columns() {
      return records.columns();
    }

    @Override
    public void setColumnStore(ColumnWriteStore columnStore) {
      records.setColumnStore(columnStore);
    }

    @Override
    public Stream<FieldMetrics<?>> metrics() {
      return records.metrics();
    }
  }

  /** One top-level column: how its value is read from the row and written. */
  private abstract static class Column {
    /** Owns the Parquet column writer (Iceberg's, which writes values at the column's level). */
    final ParquetValueWriter<?> writer;
    final TripleWriter<?> column;
    /** The definition level of a null: one below the column's. */
    final int nullLevel;
    long nulls;

    Column(ParquetValueWriter<?> writer, ColumnDescriptor descriptor) {
      this.writer = writer;
      this.column = writer.columns().get(0);
      this.nullLevel = descriptor.getMaxDefinitionLevel() - 1;
    }

    static Column of(Types.NestedField field, ColumnDescriptor descriptor) {
      Type.TypeID type = field.type().typeId();
      return switch (type) {
        case BOOLEAN -> new Copied(descriptor,
            (column, row, at) -> column.writeBoolean(0, row[at] != 0));
        case INTEGER, DATE -> new Copied(descriptor,
            (column, row, at) -> column.writeInteger(0, RowFields.intAt(row, at)));
        case LONG, TIME, TIMESTAMP -> new Copied(descriptor,
            (column, row, at) -> column.writeLong(0, RowFields.longAt(row, at)));
        case FLOAT -> new FloatColumn(field, descriptor);
        case DOUBLE -> new DoubleColumn(field, descriptor);
        case STRING, BINARY, FIXED -> new Copied(descriptor, (column, row, at) ->
            column.writeBinary(0, Binary.fromReusedByteArray(row, at + Integer.BYTES,
                RowFields.intAt(row, at))));
        case UUID -> new Copied(descriptor, (column, row, at) ->
            column.writeBinary(0, Binary.fromReusedByteArray(row, at, 2 * Long.BYTES)));
        case DECIMAL -> new DecimalColumn(field, descriptor);
        default -> throw new IllegalArgumentException("Cannot copy column " + field.name()
            + " of type " + field.type() + " from WAL rows");
      };
    }

    /**
     * Writes the value at {@code offset}, or a null when it is {@link RowFields#ABSENT} (never
     * for a required column: {@link RowFields#locate} rejects such a row).
     */
    void write(int repetitionLevel, byte[] row, int offset) {
      if (offset != RowFields.ABSENT) {
        writeValue(row, offset);
      } else {
        column.writeNull(repetitionLevel, nullLevel);
        nulls++;
      }
    }

    abstract void writeValue(byte[] row, int offset);

    Stream<FieldMetrics<?>> metrics() {
      return Stream.empty();
    }

    /**
     * {@code values} (of the present values) with this column's nulls counted in, as Iceberg's
     * writer of an optional column reports them.
     */
    <T> Stream<FieldMetrics<?>> withNulls(FieldMetrics<T> values) {
      return Stream.of(new FieldMetrics<>(values.id(), values.valueCount() + nulls, nulls,
          values.nanValueCount(), values.lowerBound(), values.upperBound(),
          values.originalType()));
    }
  }

  /** How one value goes from the row's bytes into the column (top-level: repetition level 0). */
  @FunctionalInterface
  private interface ValueCopy {
    void copy(TripleWriter<?> column, byte[] row, int offset);
  }

  /** A column whose value is copied as the row holds it. */
  private static final class Copied extends Column {
    private final ValueCopy copy;

    Copied(ColumnDescriptor descriptor, ValueCopy copy) {
      super(ParquetValueWriters.unboxed(descriptor), descriptor);
      this.copy = copy;
    }

    @Override
    void writeValue(byte[] row, int offset) {
      copy.copy(column, row, offset);
    }
  }

  /** Floats, counting NaNs for the file's metrics (as Iceberg's float writer does). */
  private static final class FloatColumn extends Column {
    private final FloatFieldMetrics.Builder metrics;

    FloatColumn(Types.NestedField field, ColumnDescriptor descriptor) {
      super(ParquetValueWriters.unboxed(descriptor), descriptor);
      this.metrics = new FloatFieldMetrics.Builder(field.fieldId());
    }

    @Override
    void writeValue(byte[] row, int offset) {
      float value = Float.intBitsToFloat(RowFields.intAt(row, offset));
      metrics.addValue(value);
      column.writeFloat(0, value);
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return withNulls(metrics.build());
    }
  }

  /** Doubles, counting NaNs for the file's metrics (as Iceberg's double writer does). */
  private static final class DoubleColumn extends Column {
    private final DoubleFieldMetrics.Builder metrics;

    DoubleColumn(Types.NestedField field, ColumnDescriptor descriptor) {
      super(ParquetValueWriters.unboxed(descriptor), descriptor);
      this.metrics = new DoubleFieldMetrics.Builder(field.fieldId());
    }

    @Override
    void writeValue(byte[] row, int offset) {
      double value = Double.longBitsToDouble(RowFields.longAt(row, offset));
      metrics.addValue(value);
      column.writeDouble(0, value);
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return withNulls(metrics.build());
    }
  }

  /**
   * Decimals through Iceberg's own decimal writers (the physical type follows the precision, and
   * they check precision and scale): rare enough that building the value costs nothing that
   * matters.
   */
  private static final class DecimalColumn extends Column {
    private final ParquetValueWriters.PrimitiveWriter<BigDecimal> decimals;
    private final int scale;

    DecimalColumn(Types.NestedField field, ColumnDescriptor descriptor) {
      this(field, descriptor, decimalWriter((Types.DecimalType) field.type(), descriptor));
    }

    private DecimalColumn(Types.NestedField field, ColumnDescriptor descriptor,
        ParquetValueWriters.PrimitiveWriter<BigDecimal> decimals) {
      super(decimals, descriptor);
      this.decimals = decimals;
      this.scale = ((Types.DecimalType) field.type()).scale();
    }

    private static ParquetValueWriters.PrimitiveWriter<BigDecimal> decimalWriter(
        Types.DecimalType type, ColumnDescriptor descriptor) {
      return switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
        case INT32 -> ParquetValueWriters.decimalAsInteger(descriptor, type.precision(),
            type.scale());
        case INT64 -> ParquetValueWriters.decimalAsLong(descriptor, type.precision(),
            type.scale());
        default -> ParquetValueWriters.decimalAsFixed(descriptor, type.precision(), type.scale());
      };
    }

    @Override
    void writeValue(byte[] row, int offset) {
      int length = RowFields.intAt(row, offset);
      byte[] unscaled = Arrays.copyOfRange(row, offset + Integer.BYTES,
          offset + Integer.BYTES + length);
      decimals.write(0, new BigDecimal(new BigInteger(unscaled), scale));
    }
  }
}
