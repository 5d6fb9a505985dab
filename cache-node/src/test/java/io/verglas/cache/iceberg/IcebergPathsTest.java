package io.verglas.cache.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IcebergPathsTest {
  @ParameterizedTest(name = "{0} immutable={1} metadata={2}")
  @CsvSource({
      "db/t/data/00000-0-abc.parquet, true, false",
      "db/t/data/day=2024-01-01/bucket=3/00000-0-abc.parquet, true, false",
      "db/t/data/x.orc, true, false",
      "db/t/data/x.avro, true, false",
      "data/x.parquet, true, false",
      "db/t/data/00000-0-abc-deletes.puffin, true, false",
      "db/t/metadata/stats-1.puffin, true, false",
      "db/t/metadata/5a1c-m0.avro, true, true",
      "db/t/metadata/snap-123-1-5a1c.avro, true, true",
      "snap-123-1-5a1c.avro, true, true",
      "db/t/metadata/00003-5a1c.metadata.json, true, true",
      "db/t/metadata/00003-5a1c.gz.metadata.json, true, true",
      "db/t/metadata/version-hint.text, false, false",
      "db/t/data/x.parquet.crc, false, false",
      "db/t/other/x.parquet, false, false",
      "db/t/metadata.avro, false, false",
      "mydata/x.parquet, false, false",
      "db/t/data/notes.txt, false, false",
      "DB/T/DATA/X.PARQUET, false, false",
      "db/t/data/X.PARQUET, true, false",
  })
  void classifiesKeys(String key, boolean immutable, boolean metadata) {
    assertThat(IcebergPaths.isImmutable(key)).isEqualTo(immutable);
    assertThat(IcebergPaths.isMetadata(key)).isEqualTo(metadata);
  }
}
