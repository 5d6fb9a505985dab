package io.verglas.clock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {
  @Test
  void staysMonotonicWhenTheWallClockStepsBack() {
    AtomicLong wall = new AtomicLong(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall::get);
    long first = clock.tick();
    wall.set(500);
    long second = clock.tick();
    assertThat(second).isGreaterThan(first);
    assertThat(HybridLogicalClock.physicalMillis(second)).isEqualTo(1_000);
    assertThat(HybridLogicalClock.logical(second)).isEqualTo(1);
  }

  @Test
  void followsTheWallClockWhenItMovesForward() {
    AtomicLong wall = new AtomicLong(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall::get);
    clock.tick();
    wall.set(2_000);
    long stamp = clock.tick();
    assertThat(HybridLogicalClock.physicalMillis(stamp)).isEqualTo(2_000);
    assertThat(HybridLogicalClock.logical(stamp)).isZero();
  }

  @Test
  void observedRemoteStampsAreOvertaken() {
    AtomicLong wall = new AtomicLong(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall::get);
    long remote = (5_000L << 16) + 7;
    clock.observe(remote);
    assertThat(clock.tick()).isGreaterThan(remote);
  }
}
