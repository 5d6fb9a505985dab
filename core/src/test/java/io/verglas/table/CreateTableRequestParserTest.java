package io.verglas.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class CreateTableRequestParserTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()));

  @Test
  void roundTrips() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).month("day").build();
    CreateTableRequest request = new CreateTableRequest(List.of("demo"), "events", SCHEMA,
        List.of("id"), spec, Map.of("format-version", "2"));

    CreateTableRequest parsed =
        CreateTableRequestParser.fromJson(CreateTableRequestParser.toJson(request));

    assertThat(parsed.identifier().toString()).isEqualTo("demo.events");
    assertThat(parsed.schema().sameSchema(SCHEMA)).isTrue();
    assertThat(parsed.primaryKey()).containsExactly("id");
    assertThat(parsed.partitionSpec().fields()).hasSize(1);
    assertThat(parsed.properties()).containsEntry("format-version", "2");
  }

  @Test
  void namesWhatIsMissing() {
    assertThatThrownBy(() -> CreateTableRequestParser.fromJson("{\"namespace\":[\"a\"],\"name\":\"t\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing schema");
    assertThatThrownBy(() -> CreateTableRequestParser.fromJson("not json"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Cannot parse");
  }

  @Test
  void primaryKeyBecomesRequiredIdentifierFields() {
    Schema keyed = PrimaryKeys.withPrimaryKey(SCHEMA, List.of("id"));
    assertThat(keyed.findField("id").isRequired()).isTrue();
    assertThat(PrimaryKeys.fieldIds(keyed)).containsExactly(1);
    assertThatThrownBy(() -> PrimaryKeys.withPrimaryKey(SCHEMA, List.of("nope")))
        .hasMessageContaining("no top-level column 'nope'");
  }
}
