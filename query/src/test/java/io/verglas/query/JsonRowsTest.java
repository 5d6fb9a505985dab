package io.verglas.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class JsonRowsTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()),
      Types.NestedField.optional(3, "blob", Types.BinaryType.get()));

  @Test
  void showsTypedRowsAsJsonReadyMapsInColumnOrderAndFollowsTheirList() {
    List<Object[]> values = new ArrayList<>();
    JsonRows rows = new JsonRows(SCHEMA, values);
    assertThat(rows).isEmpty();

    values.add(new Object[] {7L, LocalDate.of(2026, 12, 3), ByteBuffer.wrap(new byte[] {1, 2})});
    values.add(new Object[] {8L, null, null});

    assertThat(rows).hasSize(2);
    assertThat(rows.get(0)).containsExactly(Map.entry("id", 7L), Map.entry("day", "2026-12-03"),
        Map.entry("blob", "AQI="));
    assertThat(rows.get(1).keySet()).containsExactly("id", "day", "blob");
    assertThat(rows.get(1).get("day")).isNull();
  }
}
