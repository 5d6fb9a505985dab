package io.verglas.materializer.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.row.RowCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class PayloadMigrationTest {
  static final Schema BEFORE = new Schema(
      Types.NestedField.required(1, "id", Types.IntegerType.get()),
      Types.NestedField.optional(2, "score", Types.IntegerType.get()),
      Types.NestedField.optional(3, "price", Types.FloatType.get()),
      Types.NestedField.optional(4, "day", Types.DateType.get()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(6, "label", Types.StringType.get()));
  /** Columns promoted, one renamed, one added first: as a table's schema update makes it. */
  static final Schema AFTER = updated(BEFORE, update -> update
      .addColumn("note", Types.StringType.get())
      .moveFirst("note")
      .updateColumn("score", Types.LongType.get())
      .updateColumn("price", Types.DoubleType.get())
      .updateColumn("amount", Types.DecimalType.of(12, 2))
      .renameColumn("label", "title"));

  /** {@code schema} after {@code change}, applied to a table of it (in memory). */
  static Schema updated(Schema schema, UnaryOperator<UpdateSchema> change) {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("schemas", Map.of());
      catalog.createNamespace(Namespace.of("db"));
      Table table = catalog.createTable(TableIdentifier.of("db", "t"), schema);
      change.apply(table.updateSchema()).commit();
      return table.schema();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void promotedColumnsAreReadWithTheirNewTypes() {
    Record row = GenericRecord.create(BEFORE);
    row.setField("id", 1);
    row.setField("score", 7);
    row.setField("price", 2.5f);
    row.setField("day", LocalDate.of(2026, 11, 30));
    row.setField("amount", new BigDecimal("12.34"));
    row.setField("label", "a");

    byte[] migrated = PayloadMigration.between(BEFORE, AFTER).apply(RowCodec.encode(row, BEFORE));

    Record read = RowCodec.decode(migrated, AFTER);
    assertThat(read.getField("note")).isNull();
    assertThat(read.getField("id")).isEqualTo(1);
    assertThat(read.getField("score")).isEqualTo(7L);
    assertThat(read.getField("price")).isEqualTo(2.5d);
    assertThat(read.getField("day")).isEqualTo(LocalDate.of(2026, 11, 30));
    assertThat(read.getField("amount")).isEqualTo(new BigDecimal("12.34"));
    assertThat(read.getField("title")).isEqualTo("a");
  }

  @Test
  void nullsStayNull() {
    Record row = GenericRecord.create(BEFORE);
    row.setField("id", 2);
    byte[] migrated = PayloadMigration.between(BEFORE, AFTER).apply(RowCodec.encode(row, BEFORE));
    Record read = RowCodec.decode(migrated, AFTER);
    assertThat(read.getField("id")).isEqualTo(2);
    assertThat(read.getField("score")).isNull();
    assertThat(read.getField("day")).isNull();
  }

  @Test
  void payloadsWhoseColumnsKeptTheirTypesPassAsTheyAre() {
    Schema added = new Schema(BEFORE.columns().get(0), BEFORE.columns().get(1),
        Types.NestedField.optional(8, "extra", Types.LongType.get()));
    UnaryOperator<byte[]> migration = PayloadMigration.between(BEFORE, added);
    byte[] payload = {1, 2, 3};
    assertThat(migration.apply(payload)).isSameAs(payload);
  }

  @Test
  void aTypeChangeThatIsNoPromotionIsRefused() {
    Schema narrowed = new Schema(BEFORE.columns().get(0),
        Types.NestedField.optional(2, "score", Types.StringType.get()));
    assertThatThrownBy(() -> PayloadMigration.between(BEFORE, narrowed))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read rows of column score written as int as string: not a type"
            + " promotion");
  }
}
