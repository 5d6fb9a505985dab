package io.verglas.cache.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CatalogETagsTest {
  private static final String V1 = "s3://warehouse/db/t/metadata/00001-a.metadata.json";
  private static final String V2 = "s3://warehouse/db/t/metadata/00002-b.metadata.json";

  @Test
  void aTableTagFollowsItsMetadataLocationAndSnapshotsMode() {
    String tag = CatalogETags.table(V1, null);
    assertThat(tag).matches("W/\"[0-9a-f]{32}\"");
    assertThat(CatalogETags.table(V1, "ALL")).isEqualTo(tag);
    assertThat(CatalogETags.table(V2, null)).isNotEqualTo(tag);
    assertThat(CatalogETags.table(V1, "refs")).isNotEqualTo(tag);
  }

  @Test
  void aBodyTagFollowsTheBody() {
    byte[] a = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(CatalogETags.body(a)).isEqualTo(CatalogETags.body(a.clone()));
    assertThat(CatalogETags.body("{\"a\":2}".getBytes(StandardCharsets.UTF_8))).isNotEqualTo(CatalogETags.body(a));
  }

  @Test
  void ifNoneMatchIsComparedWeakly() {
    String tag = "W/\"0123\"";
    assertThat(CatalogETags.matches(null, tag)).isFalse();
    assertThat(CatalogETags.matches("W/\"0123\"", tag)).isTrue();
    assertThat(CatalogETags.matches("\"0123\"", tag)).isTrue();
    assertThat(CatalogETags.matches("\"9\" , W/\"0123\"", tag)).isTrue();
    assertThat(CatalogETags.matches("*", tag)).isTrue();
    assertThat(CatalogETags.matches("\"01234\"", tag)).isFalse();
    assertThat(CatalogETags.matches("", tag)).isFalse();
  }
}
