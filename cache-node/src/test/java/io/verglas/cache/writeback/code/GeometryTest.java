package io.verglas.cache.writeback.code;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Geometry arithmetic and its refusals, and the encoder's life cycle. */
class GeometryTest {
  @Test
  void stripesAndCellLengthsFollowTheBody() {
    Geometry g = new Geometry(4, 2, 100);
    assertThat(g.stripes(0)).isZero();
    assertThat(g.fragmentDataLength(0)).isZero();
    assertThat(g.stripes(400)).isEqualTo(1);
    assertThat(g.stripes(401)).isEqualTo(2);
    assertThat(g.cellLength(401, 0)).isEqualTo(100);
    assertThat(g.cellLength(401, 1)).isEqualTo(1);
    assertThat(g.cellLength(1000, 2)).isEqualTo(50);
    assertThat(g.fragmentDataLength(1000)).isEqualTo(250);
  }

  @Test
  void invalidGeometriesAreRefusedWithTheValue() {
    assertThatThrownBy(() -> new Geometry(0, 1, 10)).hasMessage("Invalid data fragments k=0: must be at least 1");
    assertThatThrownBy(() -> new Geometry(2, 0, 10)).hasMessage("Invalid parity fragments m=0: must be at least 1");
    assertThatThrownBy(() -> new Geometry(200, 56, 10))
        .hasMessage("Invalid geometry k=200, m=56: k+m must be at most 255");
    assertThatThrownBy(() -> new Geometry(2, 1, 0)).hasMessageContaining("Invalid cell size 0");
    assertThatThrownBy(() -> new Geometry(2, 1, 10).stripes(-1)).hasMessage("Invalid body length: -1");
    assertThatThrownBy(() -> new Geometry(2, 1, 10).cellLength(20, 1))
        .hasMessage("Invalid stripe 1: a body of 20 bytes has 1 stripes");
  }

  @Test
  void aFinishedEncoderRefusesMoreBytesAndFinishesOnce() throws IOException {
    int[] stripes = {0};
    StripeEncoder encoder = new StripeEncoder(new Geometry(2, 1, 8), (s, cells) -> stripes[0]++);
    encoder.transfer(new ByteArrayInputStream(new byte[20]));
    assertThat(encoder.finish()).isEqualTo(20);
    assertThat(encoder.finish()).isEqualTo(20);
    assertThat(stripes[0]).isEqualTo(2);
    assertThatThrownBy(() -> encoder.write(ByteBuffer.allocate(1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("Cannot encode more body bytes");
  }
}
