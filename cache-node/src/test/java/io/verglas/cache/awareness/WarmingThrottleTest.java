package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WarmingThrottleTest {
  private final AwarenessCounters counters = new AwarenessCounters();
  private final AtomicLong slept = new AtomicLong();
  private final ByteRate.Sleeper sleeper = slept::addAndGet;
  private final ByteRate unlimited = new ByteRate(Long.MAX_VALUE / 4, System::nanoTime, sleeper);

  @Test
  void aReadBeyondTheConcurrencyWaitsForASlot() throws Exception {
    WarmingThrottle throttle = new WarmingThrottle(2, unlimited, () -> false, sleeper, 0, counters);
    throttle.beforeRead();
    throttle.beforeRead();
    AtomicBoolean third = new AtomicBoolean();
    Thread reader = new Thread(() -> {
      try {
        throttle.beforeRead();
        third.set(true);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    reader.start();
    Eventually.await("the third read waiting", () -> reader.getState() == Thread.State.WAITING);
    assertThat(third).isFalse();

    throttle.afterRead(0);
    reader.join(10_000);
    assertThat(third).isTrue();
  }

  @Test
  void readsYieldWhileClientsWaitButNotForever() throws InterruptedException {
    WarmingThrottle throttle = new WarmingThrottle(1, unlimited, () -> true, sleeper,
        20_000_000L, counters);
    throttle.beforeRead();
    assertThat(slept.get()).isEqualTo(20_000_000L);
    assertThat(counters.yields.sum()).isEqualTo(1);
  }

  @Test
  void readsDoNotWaitWhenNoClientWaits() throws InterruptedException {
    WarmingThrottle throttle = new WarmingThrottle(1, unlimited, () -> false, sleeper,
        20_000_000L, counters);
    throttle.beforeRead();
    throttle.afterRead(10);
    throttle.beforeRead();
    assertThat(slept.get()).isZero();
    assertThat(counters.yields.sum()).isZero();
  }
}
