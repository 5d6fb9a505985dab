package io.verglas.materializer.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.table.PrimaryKeys;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class DataFilePropertiesTest {
  private static final Schema APPEND_ONLY = new Schema(
      Types.NestedField.optional(1, "id", Types.LongType.get()));
  private static final Schema KEYED = PrimaryKeys.withPrimaryKey(new Schema(
      Types.NestedField.optional(1, "tenant", Types.StringType.get()),
      Types.NestedField.optional(2, "id", Types.LongType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get())), List.of("tenant", "id"));
  private static final String BLOOM = TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX;

  @Test
  void theKeysColumnsGetBloomFiltersUnlessTheTableSaysOtherwise() {
    assertThat(DataFileProperties.of(Map.of(), KEYED))
        .containsExactly(Map.entry(BLOOM + "tenant", "true"), Map.entry(BLOOM + "id", "true"));
    assertThat(DataFileProperties.of(Map.of(BLOOM + "tenant", "false"), KEYED))
        .containsExactly(Map.entry(BLOOM + "id", "true"));
  }

  @Test
  void zstdWithoutALevelIsWrittenAtLevelOne() {
    assertThat(DataFileProperties.of(Map.of(TableProperties.PARQUET_COMPRESSION, "zstd"), APPEND_ONLY))
        .containsExactly(Map.entry(TableProperties.PARQUET_COMPRESSION_LEVEL, "1"));
  }

  @Test
  void aLevelSetOnTheTableWins() {
    assertThat(DataFileProperties.of(Map.of(TableProperties.PARQUET_COMPRESSION, "ZSTD",
        TableProperties.PARQUET_COMPRESSION_LEVEL, "9"), APPEND_ONLY)).isEmpty();
  }

  @Test
  void otherCodecsKeepTheirDefaults() {
    assertThat(DataFileProperties.of(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy"), APPEND_ONLY))
        .isEmpty();
    // No codec on the table: Iceberg's default codec (gzip), whose level is left alone.
    assertThat(DataFileProperties.of(Map.of(), APPEND_ONLY)).isEmpty();
  }

  @Test
  void aFileOfKnownRowsSizesItsBloomFiltersForThemUnlessTheTableDoes() {
    String ndv = TableProperties.PARQUET_BLOOM_FILTER_COLUMN_NDV_PREFIX;
    assertThat(DataFileProperties.bloomFilterRows(Map.of(BLOOM + "id", "true"),
        Map.of(BLOOM + "tenant", "true", ndv + "tenant", "9", BLOOM + "x", "false"), 20))
        .containsExactly(Map.entry(ndv + "id", "20"));
    assertThat(DataFileProperties.bloomFilterRows(Map.of(BLOOM + "id", "true"), Map.of(), -1))
        .isEmpty();
  }
}
