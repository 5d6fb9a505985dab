package io.verglas.ingest.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BatchLimitsTest {
  @Test
  void aMessageMayCarryTheBatchLimitPlusItsFraming() {
    assertThat(new BatchLimits(10, 1 << 20).maxMessageBytes()).isEqualTo(2 << 20);
    assertThat(BatchLimits.defaults().maxMessageBytes()).isEqualTo((64 << 20) + (1 << 20));
    // gRPC's cap is an int: a limit beyond it leaves gRPC's largest.
    assertThat(new BatchLimits(10, 4L << 30).maxMessageBytes()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void refusesLimitsThatAcceptNothing() {
    assertThatThrownBy(() -> new BatchLimits(10, 0)).hasMessage("Invalid max batch bytes: 0");
    assertThatThrownBy(() -> new BatchLimits(0, 10)).hasMessage("Invalid max batch rows: 0");
  }
}
