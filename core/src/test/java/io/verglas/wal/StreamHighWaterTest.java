package io.verglas.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StreamHighWaterTest {
  @Test
  void roundTripsAndRejectsGarbage() {
    assertThat(StreamHighWater.decode(StreamHighWater.encode(42))).isEqualTo(42);
    assertThatThrownBy(() -> StreamHighWater.decode("x".getBytes()))
        .isInstanceOf(CorruptSegmentException.class).hasMessageContaining("high-water");
  }

  @Test
  void markSortsAfterEverySegmentAndIsNotASegment() {
    WalLayout layout = WalLayout.defaults();
    String mark = layout.highWaterKey("s1");
    assertThat(mark).isGreaterThan(layout.segmentKey("s1", Long.MAX_VALUE));
    assertThat(layout.parse(mark)).isEmpty();
  }
}
