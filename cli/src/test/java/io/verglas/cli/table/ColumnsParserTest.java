package io.verglas.cli.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class ColumnsParserTest {
  @Test
  void parsesTypesNullabilityAndDecimals() {
    Schema schema = ColumnsParser.parse("id long not null, amount decimal(10, 2), ts timestamptz, b fixed[4]");

    assertThat(schema.findField("id").isRequired()).isTrue();
    assertThat(schema.findField("amount").type()).isEqualTo(Types.DecimalType.of(10, 2));
    assertThat(schema.findField("ts").type()).isEqualTo(Types.TimestampType.withZone());
    assertThat(schema.findField("b").type()).isEqualTo(Types.FixedType.ofLength(4));
  }

  @Test
  void parsesListsOfPrimitivesWithTheElementIdAfterTheColumn() {
    Schema schema = ColumnsParser.parse("id long, embedding list<float>, tags LIST<string> not null,"
        + " score int");

    assertThat(schema.findField("embedding").type())
        .isEqualTo(Types.ListType.ofOptional(3, Types.FloatType.get()));
    assertThat(schema.findField("tags").fieldId()).isEqualTo(4);
    assertThat(schema.findField("tags").isRequired()).isTrue();
    assertThat(schema.findField("tags").type())
        .isEqualTo(Types.ListType.ofOptional(5, Types.StringType.get()));
    assertThat(schema.findField("score").fieldId()).isEqualTo(6);
    assertThatThrownBy(() -> ColumnsParser.parse("v list<lng>"))
        .hasMessageContaining("unknown type 'lng'");
  }

  @Test
  void namesBadColumns() {
    assertThatThrownBy(() -> ColumnsParser.parse("id")).hasMessageContaining("expected NAME TYPE");
    assertThatThrownBy(() -> ColumnsParser.parse("id lng")).hasMessageContaining("unknown type 'lng'");
    assertThatThrownBy(() -> ColumnsParser.parse(" , ")).hasMessageContaining("none given");
  }

  @Test
  void parsesPartitionTransforms() {
    Schema schema = ColumnsParser.parse("id long, ts timestamptz, region string");
    PartitionSpec spec = PartitionParser.parse(schema, List.of("day(ts)", "bucket(16, id)", "region"));

    assertThat(spec.fields()).extracting(f -> f.transform().toString())
        .containsExactly("day", "bucket[16]", "identity");
    assertThatThrownBy(() -> PartitionParser.parse(schema, List.of("bucket(id)")))
        .hasMessageContaining("needs a number");
    assertThatThrownBy(() -> TableNames.parse("events")).hasMessageContaining("NAMESPACE.TABLE");
  }
}
