package io.verglas.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class KeyRowWriterTest {
  private static final Schema SCHEMA = EveryTypeRow.SCHEMA;

  @Test
  void writesWhatEncodingTheKeyColumnsAloneWrites() {
    GenericRecord row = EveryTypeRow.record();
    // Every type as a key column, in key orders unlike the column order.
    List<List<Integer>> keys = List.of(List.of(1), List.of(10, 1), List.of(14, 2, 11, 8),
        List.of(13, 12, 9, 7, 6, 5, 4, 3), List.of(3, 1, 10));
    for (List<Integer> keyFieldIds : keys) {
      byte[] key = RowCodec.encodeKey(row, SCHEMA, keyFieldIds);
      assertThat(new KeyRowWriter(SCHEMA, keyFieldIds).write(key)).as("key %s", keyFieldIds)
          .isEqualTo(RowCodec.encode(keyColumnsOnly(row, keyFieldIds), SCHEMA));
    }
  }

  @Test
  void theRowDecodesToTheKeyValues() {
    GenericRecord row = EveryTypeRow.record();
    List<Integer> keyFieldIds = List.of(10, 1);
    byte[] written = new KeyRowWriter(SCHEMA, keyFieldIds)
        .write(RowCodec.encodeKey(row, SCHEMA, keyFieldIds));
    GenericRecord decoded = RowCodec.decode(written, SCHEMA);
    assertThat(decoded.getField("s")).isEqualTo(row.getField("s"));
    assertThat(decoded.getField("id")).isEqualTo(row.getField("id"));
    assertThat(decoded.getField("d")).isNull();
  }

  @Test
  void aKeyThatDoesNotMatchItsColumnsIsRejected() {
    List<Integer> keyFieldIds = List.of(10, 1);
    byte[] key = RowCodec.encodeKey(EveryTypeRow.record(), SCHEMA, keyFieldIds);
    KeyRowWriter writer = new KeyRowWriter(SCHEMA, keyFieldIds);
    assertThatThrownBy(() -> writer.write(Arrays.copyOf(key, key.length - 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Cannot read key");
    assertThatThrownBy(() -> writer.write(Arrays.copyOf(key, key.length + 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("its values end at byte " + key.length);
    assertThatThrownBy(() -> new KeyRowWriter(SCHEMA, List.of(99)))
        .hasMessageContaining("Key field id 99");
  }

  private static GenericRecord keyColumnsOnly(GenericRecord row, List<Integer> keyFieldIds) {
    GenericRecord keyOnly = GenericRecord.create(SCHEMA);
    for (int fieldId : keyFieldIds) {
      Types.NestedField field = SCHEMA.findField(fieldId);
      keyOnly.setField(field.name(), row.getField(field.name()));
    }
    return keyOnly;
  }
}
