package io.verglas.materializer.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

class DataFilePropertiesTest {
  @Test
  void zstdWithoutALevelIsWrittenAtLevelOne() {
    assertThat(DataFileProperties.of(Map.of(TableProperties.PARQUET_COMPRESSION, "zstd")))
        .containsExactly(Map.entry(TableProperties.PARQUET_COMPRESSION_LEVEL, "1"));
  }

  @Test
  void aLevelSetOnTheTableWins() {
    assertThat(DataFileProperties.of(Map.of(TableProperties.PARQUET_COMPRESSION, "ZSTD",
        TableProperties.PARQUET_COMPRESSION_LEVEL, "9"))).isEmpty();
  }

  @Test
  void otherCodecsKeepTheirDefaults() {
    assertThat(DataFileProperties.of(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy")))
        .isEmpty();
    // No codec on the table: Iceberg's default codec (gzip), whose level is left alone.
    assertThat(DataFileProperties.of(Map.of())).isEmpty();
  }
}
