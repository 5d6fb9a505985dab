package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CommitKindTest {
  @Test
  void mapsIcebergOperations() {
    assertThat(CommitKind.of("append")).isEqualTo(CommitKind.APPEND);
    assertThat(CommitKind.of("overwrite")).isEqualTo(CommitKind.OVERWRITE);
    assertThat(CommitKind.of("delete")).isEqualTo(CommitKind.DELETE);
    assertThat(CommitKind.of("replace")).isEqualTo(CommitKind.REPLACE);
    assertThat(CommitKind.of("REPLACE")).isEqualTo(CommitKind.REPLACE);
    assertThat(CommitKind.of("something-new")).isEqualTo(CommitKind.OTHER);
    assertThat(CommitKind.of(null)).isEqualTo(CommitKind.OTHER);
  }
}
