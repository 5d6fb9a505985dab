package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.arrow.ArrowValues;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RowBatchBuilderTest {
  private static final Schema TABLE = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "count", Types.IntegerType.get()),
      Types.NestedField.optional(3, "ratio", Types.FloatType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()),
      Types.NestedField.optional(5, "ok", Types.BooleanType.get()),
      Types.NestedField.optional(6, "name", Types.StringType.get()),
      Types.NestedField.optional(7, "day", Types.DateType.get()),
      Types.NestedField.optional(8, "time", Types.TimeType.get()),
      Types.NestedField.optional(9, "at", Types.TimestampType.withZone()),
      Types.NestedField.optional(10, "local", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(11, "price", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(12, "uid", Types.UUIDType.get()),
      Types.NestedField.optional(13, "blob", Types.BinaryType.get()),
      Types.NestedField.optional(14, "code", Types.FixedType.ofLength(3)));

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void checkLeaks() {
    allocator.close();
  }

  private RowBatchBuilder builder() {
    return RowBatchBuilder.forSchema(ArrowSchemas.toArrow(TABLE), allocator);
  }

  @Test
  void writesEveryTypeFromJavaValuesAndFromStrings() {
    UUID uid = UUID.randomUUID();
    Map<String, Object> typed = new HashMap<>();
    typed.put("id", 7L);
    typed.put("count", 3);
    typed.put("ratio", 0.5f);
    typed.put("score", 2.25);
    typed.put("ok", true);
    typed.put("name", "seven");
    typed.put("day", LocalDate.of(2024, 5, 1));
    typed.put("time", LocalTime.of(10, 15, 30, 123_456_000));
    typed.put("at", Instant.parse("2024-05-01T10:15:30.123456Z"));
    typed.put("local", LocalDateTime.of(2024, 5, 1, 10, 15, 30));
    typed.put("price", new BigDecimal("12.5"));
    typed.put("uid", uid);
    typed.put("blob", ByteBuffer.wrap(new byte[] {1, 2}));
    typed.put("code", new byte[] {9, 8, 7});
    Map<String, Object> text = new HashMap<>();
    text.put("id", "8");
    text.put("count", "4");
    text.put("score", "1e3");
    text.put("ok", "FALSE");
    text.put("day", "2024-05-02");
    text.put("time", "23:59:59");
    text.put("at", "2024-05-01T12:15:30+02:00");
    text.put("local", "2024-05-02T00:00:00");
    text.put("price", "3");
    text.put("uid", uid.toString());

    try (RowBatchBuilder rows = builder()) {
      rows.add(typed).add(text).delete(Map.of("id", 9L));
      try (VectorSchemaRoot batch = rows.build()) {
        assertThat(batch.getRowCount()).isEqualTo(3);
        assertThat(batch.getSchema().getFields()).allMatch(f -> f.isNullable());
        assertThat(batch.getSchema().findField("_op")).isNotNull();
        assertThat(values(batch, 0)).containsEntry("id", 7L).containsEntry("count", 3)
            .containsEntry("ratio", 0.5f).containsEntry("score", 2.25).containsEntry("ok", true)
            .containsEntry("name", "seven").containsEntry("day", LocalDate.of(2024, 5, 1))
            .containsEntry("time", LocalTime.of(10, 15, 30, 123_456_000))
            .containsEntry("at", OffsetDateTime.of(2024, 5, 1, 10, 15, 30, 123_456_000, ZoneOffset.UTC))
            .containsEntry("local", LocalDateTime.of(2024, 5, 1, 10, 15, 30))
            .containsEntry("price", new BigDecimal("12.50")).containsEntry("uid", uid)
            .containsEntry("blob", ByteBuffer.wrap(new byte[] {1, 2}));
        assertThat((byte[]) values(batch, 0).get("code")).containsExactly(9, 8, 7);
        assertThat(values(batch, 1)).containsEntry("id", 8L).containsEntry("score", 1000.0)
            .containsEntry("ok", false).containsEntry("at",
                OffsetDateTime.of(2024, 5, 1, 10, 15, 30, 0, ZoneOffset.UTC))
            .containsEntry("price", new BigDecimal("3.00")).containsEntry("name", null);
        assertThat(values(batch, 2)).containsEntry("id", 9L).containsEntry("name", null);
        assertThat(batch.getVector("_op").getObject(2).toString()).isEqualTo("D");
        assertThat(batch.getVector("_op").isNull(0)).isTrue();
      }
      assertThat(rows.rowCount()).isZero();
    }
  }

  @Test
  void rejectsABadRowWholeAndNamesRowAndColumn() {
    try (RowBatchBuilder rows = builder()) {
      rows.add(Map.of("id", 1L));
      Map<String, Object> bad = new HashMap<>();
      bad.put("id", 2L);
      bad.put("name", "partial");
      bad.put("day", 20240501);

      assertThatThrownBy(() -> rows.add(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot add row 1: column 'day': expected a LocalDate or an ISO date string "
              + "but got Integer '20240501'");
      assertThatThrownBy(() -> rows.add(Map.of("id", 2L, "colour", "red")))
          .hasMessageStartingWith("Cannot add row 1: unknown column 'colour' (columns: id, count,");
      assertThatThrownBy(() -> rows.add(Map.of("id", 2L, "price", new BigDecimal("1.234"))))
          .hasMessage("Cannot add row 1: column 'price': value 1.234 has more than 2 decimal places");
      assertThatThrownBy(() -> rows.add(Map.of("id", 2L, "count", 1L << 40)))
          .hasMessageStartingWith("Cannot add row 1: column 'count': integer overflow");
      assertThatThrownBy(() -> rows.add(Map.of("id", 2L, "_op", "X")))
          .hasMessage("Cannot add row 1: column '_op': expected 'U' or 'D' but got 'X'");
      assertThatThrownBy(() -> rows.add(Map.of("id", 2L, "code", new byte[2])))
          .hasMessage("Cannot add row 1: column 'code': expected 3 bytes but got 2");

      try (VectorSchemaRoot batch = rows.build()) {
        assertThat(batch.getRowCount()).isEqualTo(1);
        assertThat(batch.getVector("name").isNull(0)).isTrue();
      }
    }
  }

  @Test
  void numbersRowsAcrossBatches() {
    try (RowBatchBuilder rows = builder()) {
      rows.add(Map.of("id", 1L));
      rows.build().close();
      assertThatThrownBy(() -> rows.add(Map.of("id", "x")))
          .hasMessageStartingWith("Cannot add row 1: column 'id'");
    }
  }

  private static Map<String, Object> values(VectorSchemaRoot batch, int row) {
    Map<String, Object> values = new HashMap<>();
    for (Types.NestedField column : TABLE.columns()) {
      values.put(column.name(),
          ArrowValues.reader(batch.getVector(column.name()), column.type()).apply(row));
    }
    return values;
  }
}
