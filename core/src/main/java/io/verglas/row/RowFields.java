package io.verglas.row;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
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

  public RowFields(Schema schema) {
    this.schema = schema;
    this.columns = schema.columns();
    this.types = columns.stream().map(Types.NestedField::type).toArray(Type[]::new);
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
   * which {@link RowCodec}'s decoding reads values along.
   */
  void scan(byte[] row, int[] offsets) {
    Arrays.fill(offsets, 0, types.length, ABSENT);
    ByteBuffer in = ByteBuffer.wrap(row);
    try {
      int version = Byte.toUnsignedInt(in.get());
      if (version != RowCodec.VERSION) {
        throw new IllegalArgumentException("Cannot decode row: unknown version " + version);
      }
      int next = 0;
      while (in.hasRemaining()) {
        int fieldId = in.getInt();
        int position = RowCodec.position(columns, fieldId, next);
        if (position < 0) {
          throw new IllegalArgumentException("Cannot decode row: field id " + fieldId
              + " is not in schema " + schema.schemaId()
              + " (dropping columns is not supported)");
        }
        offsets[position] = in.position();
        RowCodec.skipValue(in, types[position]);
        next = position + 1;
      }
    } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("Cannot decode row: truncated at byte " + in.position()
          + " of " + row.length + " bytes", e);
    }
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
