package io.verglas.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobArgumentsTest {
  @Test
  void pairsKeepTheirOrderInBothForms() {
    assertThat(JobArguments.parse("--a=1", "--b", "2", "--a=3"))
        .containsExactly(Map.entry("a", "1"), Map.entry("b", "2"), Map.entry("a", "3"));
  }

  @Test
  void malformedArgumentsAreNamed() {
    assertThatThrownBy(() -> JobArguments.parse("a=1"))
        .hasMessage("Invalid argument: 'a=1' (expected --key=value)");
    assertThatThrownBy(() -> JobArguments.parse("--a"))
        .hasMessage("Invalid argument: --a has no value");
  }

  @Test
  void durationsInEveryUnit() {
    assertThat(JobArguments.duration("k", "250")).isEqualTo(Duration.ofMillis(250));
    assertThat(JobArguments.duration("k", "250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(JobArguments.duration("k", "10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(JobArguments.duration("k", "2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(JobArguments.duration("k", "1h")).isEqualTo(Duration.ofHours(1));
    assertThat(JobArguments.duration("k", "PT3S")).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void badDurationsNameTheArgument() {
    for (String bad : new String[] {"", "x", "10d", "s", "1.5s"}) {
      assertThatThrownBy(() -> JobArguments.duration("sweep", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Invalid --sweep: '" + bad + "'");
    }
  }
}
