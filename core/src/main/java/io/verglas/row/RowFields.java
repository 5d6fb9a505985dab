package io.verglas.row;

import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Where each column's value lies in a {@link RowCodec} row, found without decoding any value: for
 * writers that copy values from the row's bytes straight into another format (the materializer's
 * Parquet writer), where building an Iceberg record first boxed every number and decoded every
 * string only for the writer to encode it again.
 *
 * <p>A value's bytes at its offset: fixed-width values big-endian ({@link #intAt},
 * {@link #longAt}; a boolean one byte, a UUID two longs), sized values (string, binary, fixed,
 * decimal) as a length ({@link #intAt}) followed by that many bytes.
 */
public final class RowFields {
  /** The offset of a column that the row does not hold (null, or added after it was written). */
  public static final int ABSENT = -1;

  private final Schema schema;
  private final List<Types.NestedField> columns;
  private final Type[] types;
  private final int[] fieldIds;
  /** By column: {@link RowCodec#width} of its type. */
  private final int[] widths;

  public RowFields(Schema schema) {
    this.schema = schema;
    this.columns = schema.columns();
    this.types = columns.stream().map(Types.NestedField::type).toArray(Type[]::new);
    this.fieldIds = columns.stream().mapToInt(Types.NestedField::fieldId).toArray();
    this.widths = Arrays.stream(types).mapToInt(RowCodec::width).toArray();
  }

  /** How many offsets {@link #locate} fills: one per top-level column. */
  public int size() {
    return types.length;
  }

  /**
   * Fills {@code offsets[i]} with the offset of column {@code i}'s value in {@code row}, or
   * {@link #ABSENT}.
   *
   * @throws IllegalArgumentException if the row is truncated, of an unknown version, holds a
   *     field the schema does not have, or lacks a value of a required column
   */
  public void locate(byte[] row, int[] offsets) {
    scan(row, offsets);
    for (int i = 0; i < types.length; i++) {
      if (offsets[i] == ABSENT && columns.get(i).isRequired()) {
        throw new IllegalArgumentException("Cannot write row: required column "
            + columns.get(i).name() + " is null");
      }
    }
  }

  /**
   * {@link #locate} without the check of required columns: the one walk over a row's fields,
   * which {@link RowCodec}'s decoding reads values along. It reads the array directly (the
   * materializer walks every row twice, to check it and to write it; through a byte buffer the
   * check alone took 7% of the writer's flush thread in the materialize benchmark).
   */
  void scan(byte[] row, int[] offsets) {
    Arrays.fill(offsets, 0, types.length, ABSENT);
    if (row.length == 0) {
      throw truncated(0, row);
    }
    int version = Byte.toUnsignedInt(row[0]);
    if (version != RowCodec.VERSION) {
      throw new IllegalArgumentException("Cannot decode row: unknown version " + version);
    }
    int at = 1;
    int next = 0;
    while (at < row.length) {
      if (row.length - at < Integer.BYTES) {
        throw truncated(at, row);
      }
      int fieldId = intAt(row, at);
      int position = position(fieldId, next);
      if (position < 0) {
        throw new IllegalArgumentException("Cannot decode row: field id " + fieldId
            + " is not in schema " + schema.schemaId() + " (dropping columns is not supported)");
      }
      at += Integer.BYTES;
      offsets[position] = at;
      at = skipValue(row, at, position);
      next = position + 1;
    }
  }

  /**
   * The column of {@code fieldId}, searching from column {@code from} on and then from the
   * start: values are written in column order, so the search usually ends at once (cheaper than
   * a hash look-up per value).
   */
  private int position(int fieldId, int from) {
    int size = fieldIds.length;
    for (int i = 0, candidate = from; i < size; i++, candidate++) {
      if (candidate == size) {
        candidate = 0;
      }
      if (fieldIds[candidate] == fieldId) {
        return candidate;
      }
    }
    return -1;
  }

  /** Where the value of column {@code position} at {@code at} ends. */
  private int skipValue(byte[] row, int at, int position) {
    int width = widths[position];
    if (width == RowCodec.UNSUPPORTED) {
      throw RowCodec.unsupported(types[position]);
    }
    if (width == RowCodec.SIZED) {
      if (row.length - at < Integer.BYTES) {
        throw truncated(at, row);
      }
      int length = intAt(row, at);
      at += Integer.BYTES;
      if (length < 0 || length > row.length - at) {
        throw new IllegalArgumentException("Cannot decode row: a value of " + length
            + " bytes at byte " + at + " exceeds the row of " + row.length + " bytes");
      }
      return at + length;
    }
    if (width > row.length - at) {
      throw truncated(at, row);
    }
    return at + width;
  }

  private static IllegalArgumentException truncated(int at, byte[] row) {
    return new IllegalArgumentException("Cannot decode row: truncated at byte " + at + " of "
        + row.length + " bytes");
  }

  /** The type of column {@code i}. */
  Type type(int i) {
    return types[i];
  }

  /** The big-endian int at {@code offset}. */
  public static int intAt(byte[] row, int offset) {
    return (row[offset] & 0xff) << 24 | (row[offset + 1] & 0xff) << 16
        | (row[offset + 2] & 0xff) << 8 | row[offset + 3] & 0xff;
  }

  /** The big-endian long at {@code offset}. */
  public static long longAt(byte[] row, int offset) {
    return (long) intAt(row, offset) << 32 | intAt(row, offset + Integer.BYTES) & 0xffffffffL;
  }
}
