package io.verglas.materializer.delta;

import io.verglas.row.KeyRowWriter;
import io.verglas.row.RowCodec;
import io.verglas.table.PrimaryKeys;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The primary key of a row in two forms.
 * <ul>
 *   <li>Payload: a {@link RowCodec} row that holds only the key columns (field-id keyed, so any
 *       later schema of the table decodes it). It travels with every delete in a
 *       {@link TableDelta}, so the committer can look the row up again.
 *   <li>Identity: {@link RowCodec#encodeKey} bytes, equal for equal keys, for matching rows read
 *       from data files against wanted keys.
 * </ul>
 */
public final class KeyRows {
  private KeyRows() {}

  /**
   * The payload of {@code record}'s key, a row of {@code schema}. {@code record} may be in any
   * schema that holds the key columns by name (a projection read from a data file).
   */
  public static byte[] payload(Record record, Schema schema) {
    return new Encoder(schema).payload(record);
  }

  /**
   * Writes the key payloads of many records for one schema, its key columns resolved once (the
   * writer makes one per delete; resolving them per row was a tenth of its time).
   */
  public static final class Encoder {
    private final Schema schema;
    private final int[] keyPositions;
    private final String[] keyNames;
    private final GenericRecord template;

    public Encoder(Schema schema) {
      this.schema = schema;
      this.template = GenericRecord.create(schema);
      List<Types.NestedField> columns = schema.columns();
      List<Types.NestedField> keys = columns(schema);
      this.keyPositions = keys.stream().mapToInt(columns::indexOf).toArray();
      this.keyNames = keys.stream().map(Types.NestedField::name).toArray(String[]::new);
    }

    /**
     * The payload of {@code record}'s key; {@code record} may be in any schema that holds the key
     * columns by name.
     */
    public byte[] payload(Record record) {
      GenericRecord key = template.copy();
      for (int i = 0; i < keyPositions.length; i++) {
        key.set(keyPositions[i], record.getField(keyNames[i]));
      }
      return RowCodec.encode(key, schema);
    }
  }

  /**
   * Writes the payloads of many keys of one schema from their {@link RowCodec#encodeKey} bytes:
   * the same bytes as {@link #payload} of their rows, without decoding them (the writer makes one
   * per replaced row).
   */
  public static KeyRowWriter payloadWriter(Schema schema) {
    return new KeyRowWriter(schema, PrimaryKeys.fieldIds(schema));
  }

  /** The key columns of a payload, as a record of {@code schema} (other columns null). */
  public static Record decode(byte[] payload, Schema schema) {
    return RowCodec.decode(payload, schema);
  }

  /** The identity of a record's key; {@code schema} is the record's (possibly projected) schema. */
  public static ByteBuffer identity(Record record, Schema schema, List<Integer> keyFieldIds) {
    return ByteBuffer.wrap(RowCodec.encodeKey(record, schema, keyFieldIds));
  }

  /** The key columns of {@code schema} in key order. */
  public static List<Types.NestedField> columns(Schema schema) {
    return PrimaryKeys.fieldIds(schema).stream().map(schema::findField).toList();
  }
}
