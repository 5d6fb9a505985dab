package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongLongMapTest {
  /** Random puts and removes over a small key space (long probe runs), checked against a HashMap. */
  @Test
  void behavesAsAHashMapUnderRandomPutsAndRemoves() {
    Random random = new Random(42);
    for (int round = 0; round < 20; round++) {
      LongLongMap map = new LongLongMap(Integer.MAX_VALUE);
      Map<Long, Long> model = new HashMap<>();
      for (int op = 0; op < 20_000; op++) {
        // keys that share low bits collide in the table: removal must keep their runs intact
        long key = random.nextInt(2_000) * (round % 2 == 0 ? 1L : 1L << 40);
        if (random.nextInt(3) == 0) {
          map.remove(key);
          model.remove(key);
        } else {
          long value = random.nextLong();
          map.put(key, value);
          model.put(key, value);
        }
        if (op % 97 == 0) {
          long probe = random.nextInt(2_000) * (round % 2 == 0 ? 1L : 1L << 40);
          assertThat(map.get(probe, -7)).isEqualTo(model.getOrDefault(probe, -7L));
        }
      }
      assertThat(map.size()).isEqualTo(model.size());
      for (long key = 0; key < 2_000; key++) {
        long k = key * (round % 2 == 0 ? 1L : 1L << 40);
        assertThat(map.containsKey(k)).as("key %d", k).isEqualTo(model.containsKey(k));
        assertThat(map.get(k, -7)).isEqualTo(model.getOrDefault(k, -7L));
      }
    }
  }

  @Test
  void keyZeroIsAKeyLikeAnyOther() {
    LongLongMap map = new LongLongMap(10);
    assertThat(map.containsKey(0)).isFalse();
    map.put(0, 5);
    assertThat(map.get(0, -1)).isEqualTo(5);
    map.remove(0);
    assertThat(map.containsKey(0)).isFalse();
    assertThat(map.size()).isZero();
  }

  @Test
  void atItsBoundANewKeyForgetsAnotherAndTheRestStay() {
    LongLongMap map = new LongLongMap(100);
    for (long key = 1; key <= 1_000; key++) {
      map.put(key * 0x9E3779B97F4A7C15L, key);
      assertThat(map.size()).isEqualTo((int) Math.min(key, 100));
      assertThat(map.get(key * 0x9E3779B97F4A7C15L, -1)).isEqualTo(key);
    }
    int held = 0;
    for (long key = 1; key <= 1_000; key++) {
      long value = map.get(key * 0x9E3779B97F4A7C15L, -1);
      if (value != -1) {
        assertThat(value).isEqualTo(key);
        held++;
      }
    }
    assertThat(held).isEqualTo(100);
    map.put(1_000 * 0x9E3779B97F4A7C15L, 7); // an update of a held key forgets nothing
    assertThat(map.size()).isEqualTo(100);
  }

  @Test
  void rejectsANonPositiveBound() {
    assertThatThrownBy(() -> new LongLongMap(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
