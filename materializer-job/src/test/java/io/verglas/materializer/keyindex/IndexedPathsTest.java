package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IndexedPathsTest {
  @Test
  void filesUnderTheTableLocationAreStoredRelativeToIt() {
    for (String location : new String[] {"s3://warehouse/db/t", "s3://warehouse/db/t/",
        "file:/tmp/w/db/t", "/tmp/w/db/t", "hdfs://nn:8020/w/db/t"}) {
      String base = location.endsWith("/") ? location : location + "/";
      for (String rest : new String[] {"data/00000-0-uuid-00001.parquet",
          "data/day=2026-11-30/00000-0-uuid-00001.parquet", "data/01101/part/f.parquet"}) {
        String path = base + rest;
        assertThat(IndexedPaths.relativize(location, path)).isEqualTo(rest);
        assertThat(IndexedPaths.resolve(location, rest)).isEqualTo(path);
      }
    }
  }

  @Test
  void otherPathsAreStoredInFull() {
    String location = "s3://warehouse/db/t";
    for (String path : new String[] {"s3://elsewhere/data/f.parquet",
        "s3://warehouse/db/t2/data/f.parquet", "s3://warehouse/db/t/",
        // the remainder would read as absolute
        "s3://warehouse/db/t//data/f.parquet", "s3://warehouse/db/t/x:y/f.parquet",
        "/tmp/other/f.parquet", "file:/tmp/f.parquet"}) {
      assertThat(IndexedPaths.relativize(location, path)).isEqualTo(path);
      assertThat(IndexedPaths.resolve(location, path)).isEqualTo(path);
      assertThat(IndexedPaths.resolve("s3://moved/t", path)).isEqualTo(path);
    }
  }

  /** A moved table resolves old relative paths to files it does not have: re-resolved by key. */
  @Test
  void aRelativePathFollowsTheLocationItIsResolvedAgainst() {
    assertThat(IndexedPaths.resolve("s3://moved/t", "data/f.parquet"))
        .isEqualTo("s3://moved/t/data/f.parquet");
  }
}
