package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class FrequencySketchTest {
  /** Before any aging, the estimate is never below the true count (capped at 15). */
  @Property(tries = 200)
  void neverUnderestimates(@ForAll @Size(max = 300) List<@IntRange(min = 0, max = 200) Integer> keys) {
    FrequencySketch sketch = new FrequencySketch(4096);
    Map<Integer, Integer> model = new HashMap<>();
    for (int k : keys) {
      sketch.increment(k * 0x9E3779B97F4A7C15L);
      model.merge(k, 1, Integer::sum);
    }
    model.forEach((k, n) -> assertThat(sketch.frequency(k * 0x9E3779B97F4A7C15L))
        .isGreaterThanOrEqualTo(Math.min(n, FrequencySketch.MAX_COUNT)));
  }

  @Test
  void agingHalvesOldCounts() {
    FrequencySketch sketch = new FrequencySketch(16);
    for (int i = 0; i < 12; i++) {
      sketch.increment(42);
    }
    assertThat(sketch.frequency(42)).isEqualTo(12);
    // 10 x width increments of other keys trigger at least one halving.
    for (long i = 1000; i < 1000 + 10 * 16; i++) {
      sketch.increment(i * 31);
    }
    assertThat(sketch.frequency(42)).isLessThanOrEqualTo(6);
  }

  @Test
  void unseenKeysAreMostlyZero() {
    FrequencySketch sketch = new FrequencySketch(1 << 14);
    for (long i = 0; i < 1000; i++) {
      sketch.increment(i);
    }
    int nonZero = 0;
    for (long i = 1_000_000; i < 1_001_000; i++) {
      if (sketch.frequency(i) > 0) {
        nonZero++;
      }
    }
    assertThat(nonZero).isLessThan(20);
  }
}
