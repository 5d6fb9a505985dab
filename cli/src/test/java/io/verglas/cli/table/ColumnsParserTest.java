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
