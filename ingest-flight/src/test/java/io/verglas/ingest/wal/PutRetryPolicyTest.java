package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PutRetryPolicyTest {
  @Test
  void doublesUpToTheCap() {
    PutRetryPolicy policy = new PutRetryPolicy(10, Duration.ofMillis(100), Duration.ofMillis(500));
    assertThat(policy.backoff(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(policy.backoff(2)).isEqualTo(Duration.ofMillis(200));
    assertThat(policy.backoff(3)).isEqualTo(Duration.ofMillis(400));
    assertThat(policy.backoff(4)).isEqualTo(Duration.ofMillis(500));
    assertThat(policy.backoff(60)).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new PutRetryPolicy(0, Duration.ZERO, Duration.ZERO))
        .hasMessage("Invalid max attempts: 0 (at least 1)");
    assertThatThrownBy(() -> new PutRetryPolicy(1, Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("must be at least the initial backoff");
  }
}
