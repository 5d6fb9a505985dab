package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.ImmutableObjects;
import org.junit.jupiter.api.Test;

class MetadataImmutablesTest {
  @Test
  void learnedKeysAreImmutableBesideTheFallback() {
    MetadataImmutables immutables = new MetadataImmutables(ImmutableObjects.icebergPaths(), 10);
    assertThat(immutables.isImmutable("b", "t/files/a.parquet")).isFalse();
    assertThat(immutables.isImmutable("b", "t/data/a.parquet")).isTrue();

    immutables.learn("b", "t/files/a.parquet");
    assertThat(immutables.isImmutable("b", "t/files/a.parquet")).isTrue();
    assertThat(immutables.isImmutable("other", "t/files/a.parquet")).isFalse();
  }

  @Test
  void keysTheFallbackCoversAreNotStored() {
    MetadataImmutables immutables = new MetadataImmutables(ImmutableObjects.icebergPaths(), 10);
    immutables.learn("b", "t/data/a.parquet");
    immutables.learn("b", "t/metadata/snap-1.avro");
    assertThat(immutables.size()).isZero();
  }

  @Test
  void beyondItsBoundKeysFallBackToTheHeuristics() {
    MetadataImmutables immutables = new MetadataImmutables(ImmutableObjects.NONE, 2);
    for (int i = 0; i < 50; i++) {
      immutables.learn("b", "k" + i);
    }
    assertThat(immutables.size()).isLessThanOrEqualTo(2);
    long remembered = java.util.stream.IntStream.range(0, 50)
        .filter(i -> immutables.isImmutable("b", "k" + i)).count();
    assertThat(remembered).isLessThanOrEqualTo(2);
  }

  @Test
  void aZeroBoundLearnsNothing() {
    MetadataImmutables immutables = new MetadataImmutables(ImmutableObjects.NONE, 0);
    immutables.learn("b", "k");
    assertThat(immutables.isImmutable("b", "k")).isFalse();
  }

  @Test
  void aNegativeBoundIsRefused() {
    assertThatThrownBy(() -> new MetadataImmutables(ImmutableObjects.NONE, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid immutable key limit: -1 (must be >= 0)");
  }
}
