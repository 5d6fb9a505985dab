package io.verglas.events.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void doublesUpToItsCapAndStaysThere() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1));

    assertThat(LongStream.of(1, 2, 3, 4, 5, 6, 100, Long.MAX_VALUE)
        .mapToObj(n -> backoff.delay(n).toMillis()))
        .containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L, 1000L);
  }

  @Test
  void refusesAnInvalidSchedule() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessage("Invalid backoff: PT0S to PT1S (need 1 ms <= initial <= max)");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessage("Invalid backoff: PT2S to PT1S (need 1 ms <= initial <= max)");
  }
}
