package io.verglas.row;

import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;

/**
 * Decodes {@link RowCodec} rows into records of one schema, for callers that decode many: the
 * record's layout is resolved once here, where {@link RowCodec#decode(byte[], Schema)} looks it
 * up in Iceberg's shared cache for every row (a struct-type hash per look-up; measured at a tenth
 * of the materializer's writer thread).
 */
public final class RowDecoder {
  private final RowFields fields;
  private final GenericRecord template;

  public RowDecoder(Schema schema) {
    this.fields = new RowFields(schema);
    this.template = GenericRecord.create(schema);
  }

  /** A new record holding the row's values. */
  public GenericRecord decode(byte[] bytes) {
    return RowCodec.decodeInto(bytes, template.copy(), fields);
  }

  /**
   * A new record holding the row's values, for a caller that has already walked the row: the
   * {@code offsets} {@link RowFields#locate} filled for this decoder's schema.
   */
  public GenericRecord decode(byte[] bytes, int[] offsets) {
    return RowCodec.readInto(bytes, template.copy(), fields, offsets);
  }
}
