package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.protocol.IngestProtocol;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TableRowsTest {
  private static final org.apache.iceberg.Schema TABLE = new org.apache.iceberg.Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "item", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()));

  record Order(long id, String item, Optional<LocalDate> day) {}

  record Tagged(long id, String item, String colour) {}

  record Partial(Long id, String item) {}

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void checkLeaks() {
    allocator.close();
  }

  private TableRows rows() {
    Schema arrow = ArrowSchemas.toArrow(TABLE);
    return TableRows.forSchema(new Schema(arrow.getFields(),
        Map.of(IngestProtocol.SCHEMA_PRIMARY_KEY, "[\"id\"]")), allocator);
  }

  @Test
  void recordsAndMapsBecomeTheSameColumns() {
    try (TableRows rows = rows()) {
      rows.add(new Order(1, "tea", Optional.of(LocalDate.of(2026, 12, 1))));
      rows.add(new Order(2, "cake", Optional.empty()));
      rows.add(Map.of("id", 3L, "item", "jam", "day", "2026-12-02"));
      rows.add(Map.of("id", 4L, IngestProtocol.OP_COLUMN, "D"));
      try (VectorSchemaRoot batch = rows.build()) {
        assertThat(batch.getRowCount()).isEqualTo(4);
        BigIntVector ids = (BigIntVector) batch.getVector("id");
        assertThat(List.of(ids.get(0), ids.get(1), ids.get(2), ids.get(3))).containsExactly(1L, 2L, 3L, 4L);
        assertThat(((VarCharVector) batch.getVector("item")).getObject(1).toString()).isEqualTo("cake");
        DateDayVector days = (DateDayVector) batch.getVector("day");
        assertThat(days.get(0)).isEqualTo((int) LocalDate.of(2026, 12, 1).toEpochDay());
        assertThat(days.isNull(1)).isTrue();
        assertThat(days.get(2)).isEqualTo((int) LocalDate.of(2026, 12, 2).toEpochDay());
      }
    }
  }

  @Test
  void aBadRowIsRejectedWithItsNumberAndColumnAndNothingOfItIsAdded() {
    try (TableRows rows = rows()) {
      rows.add(new Order(1, "tea", Optional.empty()));
      assertThatThrownBy(() -> rows.add(new Partial(2L, null)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot add row 1: missing required column 'item'");
      assertThatThrownBy(() -> rows.add(new Tagged(2, "tea", "red")))
          .hasMessageStartingWith("Cannot add row 1: unknown field 'colour' of Tagged (columns: id, item, day");
      Map<String, Object> wrongType = new HashMap<>(Map.of("id", "not-a-number", "item", "tea"));
      assertThatThrownBy(() -> rows.add(wrongType))
          .hasMessageStartingWith("Cannot add row 1: column 'id':");
      assertThatThrownBy(() -> rows.add(Map.of("id", 5L, "item", "x", "price", 3)))
          .hasMessageStartingWith("Cannot add row 1: unknown column 'price'");
      assertThatThrownBy(() -> rows.add(Map.of(IngestProtocol.OP_COLUMN, "D")))
          .hasMessage("Cannot add row 1: missing required column 'id' (a delete names its primary key)");
      assertThatThrownBy(() -> rows.add("a string"))
          .hasMessageContaining("a row is a Map or a record, not java.lang.String");
      assertThat(rows.rowCount()).isEqualTo(1);
      rows.add(Map.of("id", 2L, "item", "cake"));
      try (VectorSchemaRoot batch = rows.build()) {
        assertThat(batch.getRowCount()).isEqualTo(2);
      }
    }
  }
}
