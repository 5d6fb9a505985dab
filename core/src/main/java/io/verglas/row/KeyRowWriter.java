package io.verglas.row;

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
      positions[k] = RowCodec.position(columns, fieldId, 0);
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
    int[] starts = new int[keyTypes.length + 1];
    for (int k = 0; k < keyTypes.length; k++) {
      starts[k + 1] = starts[k] + valueLength(key, starts[k], keyTypes[k]);
    }
    if (starts[keyTypes.length] != key.length) {
      throw new IllegalArgumentException("Cannot read key: its values end at byte "
          + starts[keyTypes.length] + " of " + key.length);
    }
    byte[] row = new byte[1 + 4 * keyTypes.length + key.length];
    row[0] = (byte) RowCodec.VERSION;
    int at = 1;
    for (int c = 0; c < keyIndexInColumnOrder.length; c++) {
      int k = keyIndexInColumnOrder[c];
      at = putInt(row, at, fieldIdsInColumnOrder[c]);
      System.arraycopy(key, starts[k], row, at, starts[k + 1] - starts[k]);
      at += starts[k + 1] - starts[k];
    }
    return row;
  }

  /** How many bytes the value of {@code type} at {@code offset} takes. */
  private static int valueLength(byte[] bytes, int offset, Type type) {
    switch (type.typeId()) {
      case BOOLEAN: return 1;
      case INTEGER: case FLOAT: case DATE: return 4;
      case LONG: case DOUBLE: case TIME: case TIMESTAMP: return 8;
      case UUID: return 16;
      case STRING: case FIXED: case BINARY: case DECIMAL:
        if (offset + 4 > bytes.length) {
          throw new IllegalArgumentException("Cannot read key: truncated at byte " + offset);
        }
        int length = ((bytes[offset] & 0xff) << 24) | ((bytes[offset + 1] & 0xff) << 16)
            | ((bytes[offset + 2] & 0xff) << 8) | (bytes[offset + 3] & 0xff);
        if (length < 0 || offset + 4 + length > bytes.length) {
          throw new IllegalArgumentException("Cannot read key: a value of " + length
              + " bytes at byte " + offset + " exceeds the key of " + bytes.length + " bytes");
        }
        return 4 + length;
      default: throw new IllegalArgumentException("Cannot read key value of type " + type);
    }
  }

  private static int putInt(byte[] bytes, int at, int value) {
    bytes[at] = (byte) (value >>> 24);
    bytes[at + 1] = (byte) (value >>> 16);
    bytes[at + 2] = (byte) (value >>> 8);
    bytes[at + 3] = (byte) value;
    return at + 4;
  }
}
