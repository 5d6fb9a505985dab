package io.verglas.row;

import io.verglas.arrow.ArrowValues;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Encodes the rows of one Arrow batch in {@link RowCodec}'s form, payload and primary key,
 * reading the vectors directly: the same bytes as {@link RowCodec#encode} and
 * {@link RowCodec#encodeKey} of the row read as Iceberg generic values, without those values.
 *
 * <p>Why: the materializer's source encodes every WAL row. Through generic values a timestamp
 * became an {@code OffsetDateTime} and back to microseconds, a string was decoded from UTF-8
 * and encoded again, every number was boxed, and the key's columns were looked up by id and by
 * name per row. Where the Arrow vector holds exactly the column's encoded form (64- and 32-bit
 * integers, floats, doubles, booleans, days, microsecond timestamps, ASCII strings) its value is
 * copied; any other pairing (widening, other units, decimals, binary, uuid) goes through the
 * generic value as before. The pairing must be compatible
 * ({@code ArrowSchemas.incompatibility}); the encoder does not check it again.
 *
 * <p>Not thread-safe: it reuses one buffer for the rows it encodes.
 */
public final class ArrowRowEncoder {
  private final int[] fieldIds;
  private final FieldVector[] vectors;
  private final ColumnEncoder[] columns;
  /**
   * By column: whether the batch holds a null in it. Why: a column without nulls is not asked
   * per row, and asking is a call through the vector's interface whose receivers differ column
   * by column, a dispatch the JIT cannot inline (such dispatches were a tenth of the source's
   * fetch thread in the materialize benchmark, half of them these).
   */
  private final boolean[] hasNulls;
  private final int[] keyColumns;
  private final String[] keyNames;
  private final RowBytes out = new RowBytes(256);

  private ArrowRowEncoder(int[] fieldIds, FieldVector[] vectors, ColumnEncoder[] columns,
      int[] keyColumns, String[] keyNames) {
    this.fieldIds = fieldIds;
    this.vectors = vectors;
    this.columns = columns;
    this.hasNulls = new boolean[vectors.length];
    for (int c = 0; c < vectors.length; c++) {
      hasNulls[c] = vectors[c] != null && vectors[c].getNullCount() > 0;
    }
    this.keyColumns = keyColumns;
    this.keyNames = keyNames;
  }

  /**
   * An encoder of rows of {@code schema} whose columns are read from {@code vectors}, in the
   * schema's column order (null where the batch lacks a column: it reads as null). The vectors
   * are read as loaded: which of them hold nulls is taken now, so they must not change after.
   */
  public static ArrowRowEncoder bind(Schema schema, List<Integer> keyFieldIds,
      List<FieldVector> vectors) {
    List<Types.NestedField> schemaColumns = schema.columns();
    if (vectors.size() != schemaColumns.size()) {
      throw new IllegalArgumentException("Cannot bind " + vectors.size() + " vectors to "
          + schemaColumns.size() + " columns");
    }
    int[] ids = new int[schemaColumns.size()];
    FieldVector[] bound = vectors.toArray(FieldVector[]::new);
    ColumnEncoder[] encoders = new ColumnEncoder[ids.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = schemaColumns.get(i).fieldId();
      encoders[i] = bound[i] == null ? null : encoder(bound[i], schemaColumns.get(i).type());
    }
    List<Integer> keyPositions = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int fieldId : keyFieldIds) {
      int position = RowCodec.position(schemaColumns, fieldId);
      if (position < 0) {
        throw new IllegalArgumentException("Invalid primary key: field id " + fieldId
            + " is not in schema " + schema.schemaId());
      }
      keyPositions.add(position);
      names.add(schemaColumns.get(position).name());
    }
    return new ArrowRowEncoder(ids, bound, encoders,
        keyPositions.stream().mapToInt(Integer::intValue).toArray(),
        names.toArray(String[]::new));
  }

  /** The row's payload: {@link RowCodec#encode} of its values. */
  public byte[] payload(int row) {
    out.clear();
    out.writeByte(RowCodec.VERSION);
    for (int c = 0; c < columns.length; c++) {
      if (columns[c] != null && !isNull(c, row)) {
        out.writeInt(fieldIds[c]);
        columns[c].write(out, row);
      }
    }
    return out.toByteArray();
  }

  /**
   * The row's primary key: {@link RowCodec#encodeKey} of its values.
   *
   * @throws IllegalArgumentException if a key column is null or missing
   */
  public byte[] key(int row) {
    out.clear();
    for (int k = 0; k < keyColumns.length; k++) {
      int c = keyColumns[k];
      if (columns[c] == null || isNull(c, row)) {
        throw new IllegalArgumentException("Invalid primary key: " + keyNames[k] + " is null");
      }
      columns[c].write(out, row);
    }
    return out.toByteArray();
  }

  private boolean isNull(int column, int row) {
    return hasNulls[column] && vectors[column].isNull(row);
  }

  /** Writes one non-null cell of a column in {@link RowCodec}'s value form. */
  @FunctionalInterface
  private interface ColumnEncoder {
    void write(RowBytes out, int row);
  }

  private static ColumnEncoder encoder(FieldVector vector, Type type) {
    ColumnEncoder direct = direct(vector, type.typeId());
    if (direct != null) {
      return direct;
    }
    IntFunction<Object> value = ArrowValues.reader(vector, type);
    return (out, row) -> RowCodec.writeValue(out, type, value.apply(row));
  }

  /** The copying encoder where the vector holds the column's encoded form; else null. */
  private static ColumnEncoder direct(FieldVector vector, Type.TypeID type) {
    switch (type) {
      case LONG:
        return vector instanceof BigIntVector v ? (out, row) -> out.writeLong(v.get(row)) : null;
      case INTEGER:
        return vector instanceof IntVector v ? (out, row) -> out.writeInt(v.get(row)) : null;
      case DOUBLE:
        return vector instanceof Float8Vector v
            ? (out, row) -> out.writeLong(Double.doubleToLongBits(v.get(row))) : null;
      case FLOAT:
        return vector instanceof Float4Vector v
            ? (out, row) -> out.writeInt(Float.floatToIntBits(v.get(row))) : null;
      case BOOLEAN:
        return vector instanceof BitVector v ? (out, row) -> out.writeByte(v.get(row)) : null;
      case DATE:
        return vector instanceof DateDayVector v ? (out, row) -> out.writeInt(v.get(row)) : null;
      case TIMESTAMP:
        return vector instanceof TimeStampMicroTZVector || vector instanceof TimeStampMicroVector
            ? (out, row) -> out.writeLong(((TimeStampVector) vector).get(row)) : null;
      case STRING:
        return vector instanceof VarCharVector v ? (out, row) -> {
          int start = v.getStartOffset(row);
          out.writeString(v.getDataBuffer(), start, v.getEndOffset(row) - start);
        } : null;
      default:
        return null;
    }
  }
}
