package io.verglas.maintenance.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FileKindsTest {
  @Test
  void namesKindsByIcebergFileNames() {
    String table = "s3://w/db/t/";
    assertThat(FileKinds.count(List.of(
        table + "data/00000-0-a.parquet",
        table + "data/00001-0-b.parquet",
        table + "data/00000-1-dv.puffin",
        table + "metadata/snap-123-1-x.avro",
        table + "metadata/x-m0.avro",
        table + "metadata/00003-y.metadata.json",
        table + "data/crash.tmp")))
        .containsExactly(Map.entry("data", 2L), Map.entry("manifest", 1L),
            Map.entry("manifest-list", 1L), Map.entry("metadata", 1L), Map.entry("other", 1L),
            Map.entry("puffin", 1L));
  }
}
