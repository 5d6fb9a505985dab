package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class HeatSamplesTest {
  private static final HeatCoordinates AT = new HeatCoordinates("db.t", "", "a");

  @Test
  void aFullRingDropsAndCountsInsteadOfWaiting() {
    HeatSamples samples = new HeatSamples(3); // rounded up to 4 slots
    for (int i = 0; i < 10; i++) {
      samples.offer(AT);
    }
    List<HeatCoordinates> drained = new ArrayList<>();
    assertThat(samples.drain(drained::add)).isEqualTo(4);
    assertThat(samples.offered()).isEqualTo(10);
    assertThat(samples.dropped()).isEqualTo(6);
    assertThat(samples.offer(AT)).isTrue();
  }

  @Test
  void concurrentProducersLoseNothingUncounted() throws InterruptedException {
    HeatSamples samples = new HeatSamples(64);
    LongAdder drained = new LongAdder();
    List<Thread> producers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread producer = new Thread(() -> {
        for (int i = 0; i < 50_000; i++) {
          samples.offer(AT);
        }
      });
      producer.start();
      producers.add(producer);
    }
    Thread drainer = new Thread(() -> {
      while (producers.stream().anyMatch(Thread::isAlive)) {
        samples.drain(s -> drained.increment());
      }
    });
    drainer.start();
    for (Thread producer : producers) {
      producer.join();
    }
    drainer.join();
    samples.drain(s -> drained.increment());
    assertThat(drained.sum() + samples.dropped()).isEqualTo(200_000);
  }

  @Test
  void rejectsABadCapacity() {
    assertThatThrownBy(() -> new HeatSamples(0)).hasMessageContaining("Invalid heat sample buffer: 0");
  }
}
