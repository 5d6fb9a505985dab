package io.verglas.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RowFieldsTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.IntegerType.get()),
      Types.NestedField.optional(4, "flag", Types.BooleanType.get()));

  @Test
  void locatesEachValueAndMarksNullsAbsent() {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 0x0102030405060708L);
    record.setField("name", "héllo");
    record.setField("flag", true);
    byte[] row = RowCodec.encode(record, SCHEMA);
    RowFields fields = new RowFields(SCHEMA);
    int[] offsets = new int[fields.size()];

    fields.locate(row, offsets);

    assertThat(offsets[2]).isEqualTo(RowFields.ABSENT);
    assertThat(RowFields.longAt(row, offsets[0])).isEqualTo(0x0102030405060708L);
    int length = RowFields.intAt(row, offsets[1]);
    assertThat(new String(row, offsets[1] + Integer.BYTES, length, StandardCharsets.UTF_8))
        .isEqualTo("héllo");
    assertThat(row[offsets[3]]).isEqualTo((byte) 1);
  }

  @Test
  void readsNegativeNumbersBack() {
    RowBytes out = new RowBytes(12);
    out.writeInt(-2);
    out.writeLong(Long.MIN_VALUE + 3);
    byte[] row = out.toByteArray();
    assertThat(RowFields.intAt(row, 0)).isEqualTo(-2);
    assertThat(RowFields.longAt(row, 4)).isEqualTo(Long.MIN_VALUE + 3);
  }

  @Test
  void aRowWrittenBeforeAColumnWasAddedLeavesItAbsent() {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 7L);
    byte[] row = RowCodec.encode(record, SCHEMA);
    Schema evolved = new Schema(Types.NestedField.optional(5, "added", Types.DoubleType.get()),
        SCHEMA.columns().get(0));
    int[] offsets = new int[2];

    new RowFields(evolved).locate(row, offsets);

    assertThat(offsets[0]).isEqualTo(RowFields.ABSENT);
    assertThat(RowFields.longAt(row, offsets[1])).isEqualTo(7L);
  }

  @Test
  void rejectsRowsItCannotRead() {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", 7L);
    record.setField("name", "seven");
    byte[] row = RowCodec.encode(record, SCHEMA);
    RowFields fields = new RowFields(SCHEMA);
    int[] offsets = new int[fields.size()];

    assertThatThrownBy(() -> fields.locate(Arrays.copyOf(row, row.length - 2), offsets))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the row");
    assertThatThrownBy(() -> fields.locate(Arrays.copyOf(row, 3), offsets))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
    byte[] future = row.clone();
    future[0] = 9;
    assertThatThrownBy(() -> fields.locate(future, offsets))
        .hasMessageContaining("unknown version 9");
    GenericRecord keyless = GenericRecord.create(SCHEMA);
    keyless.setField("name", "no id");
    assertThatThrownBy(() -> fields.locate(RowCodec.encode(keyless, SCHEMA), offsets))
        .hasMessageContaining("required column id is null");
    Schema dropped = new Schema(SCHEMA.columns().get(0));
    assertThatThrownBy(() -> new RowFields(dropped).locate(row, new int[1]))
        .hasMessageContaining("field id 2 is not in schema")
        .hasMessageContaining("dropping columns is not supported");
  }
}
