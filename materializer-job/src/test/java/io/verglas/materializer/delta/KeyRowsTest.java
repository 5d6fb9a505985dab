package io.verglas.materializer.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.row.RowCodec;
import io.verglas.table.PrimaryKeys;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class KeyRowsTest {
  /** Key columns away from the front, so positions in a projection differ from the table's. */
  private static final Schema TABLE = new Schema(
      java.util.List.of(
          Types.NestedField.optional(1, "note", Types.StringType.get()),
          Types.NestedField.required(2, "tenant", Types.StringType.get()),
          Types.NestedField.optional(3, "value", Types.LongType.get()),
          Types.NestedField.required(4, "id", Types.LongType.get())),
      Set.of(2, 4));

  @Test
  void aProjectedRecordGivesThePayloadOfTheFullRecord() {
    GenericRecord full = GenericRecord.create(TABLE);
    full.setField("note", "n");
    full.setField("tenant", "acme");
    full.setField("value", 9L);
    full.setField("id", 42L);
    Schema projection = TypeUtil.select(TABLE, Set.of(2, 4));
    GenericRecord projected = GenericRecord.create(projection);
    projected.setField("tenant", "acme");
    projected.setField("id", 42L);

    byte[] expected = KeyRows.payload(full, TABLE);
    KeyRows.Encoder encoder = new KeyRows.Encoder(TABLE);
    assertThat(encoder.payload(full)).isEqualTo(expected);
    assertThat(encoder.payload(projected)).isEqualTo(expected);
    assertThat(KeyRows.payload(projected, TABLE)).isEqualTo(expected);
    byte[] keyBytes = RowCodec.encodeKey(full, TABLE, PrimaryKeys.fieldIds(TABLE));
    assertThat(KeyRows.payloadWriter(TABLE).write(keyBytes)).isEqualTo(expected);

    var decoded = KeyRows.decode(expected, TABLE);
    assertThat(decoded.getField("tenant")).isEqualTo("acme");
    assertThat(decoded.getField("id")).isEqualTo(42L);
    assertThat(decoded.getField("note")).isNull();
    assertThat(decoded.getField("value")).isNull();
  }
}
