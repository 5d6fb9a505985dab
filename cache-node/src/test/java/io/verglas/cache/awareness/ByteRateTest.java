package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ByteRateTest {
  private long now = 1_000_000_000L;
  private final List<Long> sleeps = new ArrayList<>();
  private final ByteRate rate = new ByteRate(1000, () -> now, nanos -> {
    sleeps.add(nanos);
    now += nanos;
  });

  @Test
  void startsWithOneSecondOfCreditAndWaitsOutItsDebt() throws InterruptedException {
    rate.consume(1000);
    rate.awaitCredit();
    assertThat(sleeps).isEmpty();

    rate.consume(500);
    rate.awaitCredit();
    assertThat(sleeps.stream().mapToLong(Long::longValue).sum()).isEqualTo(500_000_000L);
  }

  @Test
  void anIdleBucketBanksNoMoreThanOneSecond() throws InterruptedException {
    now += 10_000_000_000L;
    rate.consume(3000);
    rate.awaitCredit();
    assertThat(sleeps.stream().mapToLong(Long::longValue).sum()).isEqualTo(2_000_000_000L);
  }

  @Test
  void freeReadsCostNothing() throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      rate.awaitCredit();
      rate.consume(0);
    }
    assertThat(sleeps).isEmpty();
  }

  @Test
  void aRateMustBePositive() {
    assertThatThrownBy(() -> new ByteRate(0, System::nanoTime, ByteRate.Sleeper.THREAD))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid byte rate: 0 (must be > 0)");
  }
}
