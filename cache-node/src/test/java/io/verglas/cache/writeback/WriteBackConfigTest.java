package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.code.Geometry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The write-back settings' builder: defaults, the k ≤ w ≤ k+m rule, refusals naming the value. */
class WriteBackConfigTest {
  private static final Path DIR = Path.of("/tmp/wb");

  @Test
  void defaultsAreTwoPlusOneAcknowledgedByAllThree() {
    WriteBackConfig config = WriteBackConfig.builder().directory(DIR).build();
    assertThat(config.geometry()).isEqualTo(new Geometry(2, 1, WriteBackConfig.DEFAULT_CELL_BYTES));
    assertThat(config.ackFragments()).isEqualTo(3);
    assertThat(config.fragmentCeilingBytes()).isEqualTo(WriteBackConfig.DEFAULT_FRAGMENT_CEILING_BYTES);
    assertThat(config.fragmentDirectory()).isEqualTo(DIR.resolve("fragments"));
  }

  @Test
  void wMustLieBetweenKAndKPlusM() {
    assertThat(WriteBackConfig.builder().directory(DIR).dataFragments(4).parityFragments(2).ackFragments(4).build()
        .ackFragments()).isEqualTo(4);
    assertThatThrownBy(() -> WriteBackConfig.builder().directory(DIR).dataFragments(4).parityFragments(2)
        .ackFragments(3).build()).hasMessage("Invalid ack fragments w=3: must be between k=4 and k+m=6");
    assertThatThrownBy(() -> WriteBackConfig.builder().directory(DIR).ackFragments(4).build())
        .hasMessage("Invalid ack fragments w=4: must be between k=2 and k+m=3");
  }

  @Test
  void badValuesAndSecondCallsAreRefused() {
    WriteBackConfig.Builder builder = WriteBackConfig.builder().dataFragments(3);
    assertThatThrownBy(() -> builder.dataFragments(3)).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot set dataFragments twice");
    assertThatThrownBy(() -> builder.parityFragments(0)).hasMessage("Invalid parity fragments m: 0 (must be at least 1)");
    assertThatThrownBy(() -> builder.fragmentCeilingBytes(-1)).hasMessageContaining("Invalid fragment ceiling: -1");
    assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("no directory");
    assertThatThrownBy(() -> WriteBackConfig.builder().directory(DIR).dataFragments(250).parityFragments(6).build())
        .hasMessage("Invalid geometry k=250, m=6: k+m must be at most 255");
  }
}
