package io.verglas.row;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Turns a row's {@link RowCodec#encodeKey} bytes into the {@link RowCodec#encode} form of a row
 * holding the key columns alone, byte for byte what encoding that row would give, without
 * decoding the values: both forms write each value the same way, the key in key order and the
 * row in column order with field ids. The materializer's writer makes one per replaced row;
 * decoding the whole row for it cost more than the rest of the delete.
 */
public final class KeyRowWriter {
  /** The key columns' types, in key order. */
  private final Type[] keyTypes;
  /** The key columns' field ids, in column order. */
  private final int[] fieldIdsInColumnOrder;
  /** For each key column in column order, its index in key order. */
  private final int[] keyIndexInColumnOrder;

  /** A writer for rows of {@code schema} keyed by the top-level columns {@code keyFieldIds}. */
  public KeyRowWriter(Schema schema, List<Integer> keyFieldIds) {
    List<Types.NestedField> columns = schema.columns();
    keyTypes = new Type[keyFieldIds.size()];
    int[] positions = new int[keyFieldIds.size()];
    for (int k = 0; k < keyFieldIds.size(); k++) {
      int fieldId = keyFieldIds.get(k);
      positions[k] = RowCodec.position(columns, fieldId);
      if (positions[k] < 0) {
        throw new IllegalArgumentException(
            "Key field id " + fieldId + " is not a top-level column of schema " + schema.schemaId());
      }
      keyTypes[k] = columns.get(positions[k]).type();
    }
    Integer[] order = new Integer[positions.length];
    Arrays.setAll(order, k -> k);
    Arrays.sort(order, (a, b) -> Integer.compare(positions[a], positions[b]));
    keyIndexInColumnOrder = Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    fieldIdsInColumnOrder = Arrays.stream(keyIndexInColumnOrder)
        .map(k -> keyFieldIds.get(k)).toArray();
  }

  /** The key-columns row of the row whose key bytes are {@code key}. */
  public byte[] write(byte[] key) {
    int[] starts = valueStarts(key);
    RowBytes row = new RowBytes(1 + Integer.BYTES * keyTypes.length + key.length);
    row.writeByte(RowCodec.VERSION);
    for (int c = 0; c < keyIndexInColumnOrder.length; c++) {
      int k = keyIndexInColumnOrder[c];
      row.writeInt(fieldIdsInColumnOrder[c]);
      row.writeBytes(key, starts[k], starts[k + 1] - starts[k]);
    }
    return row.toByteArray();
  }

  /** Where each key value starts, in key order, and (last) where the last one ends. */
  private int[] valueStarts(byte[] key) {
    ByteBuffer in = ByteBuffer.wrap(key);
    int[] starts = new int[keyTypes.length + 1];
    try {
      for (int k = 0; k < keyTypes.length; k++) {
        RowCodec.skipValue(in, keyTypes[k]);
        starts[k + 1] = in.position();
      }
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("Cannot read key: truncated at byte " + in.position()
          + " of " + key.length, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot read key: " + e.getMessage(), e);
    }
    if (in.hasRemaining()) {
      throw new IllegalArgumentException("Cannot read key: its values end at byte "
          + in.position() + " of " + key.length);
    }
    return starts;
  }
}
