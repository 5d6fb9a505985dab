package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import org.junit.jupiter.api.Test;

class WriteBackStatsTest {
  @Test
  void plusSumsEveryCountAndKeepsTheOlderAge() throws Exception {
    RecordComponent[] components = WriteBackStats.class.getRecordComponents();
    long[] a = new long[components.length];
    long[] b = new long[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      a[i] = 1L << i;
      b[i] = 3L << (i + 20);
      types[i] = long.class;
    }
    var constructor = WriteBackStats.class.getDeclaredConstructor(types);
    WriteBackStats sum = constructor.newInstance(boxed(a)).plus(constructor.newInstance(boxed(b)));
    for (int i = 0; i < components.length; i++) {
      long expected = components[i].getName().equals("oldestDirtyAgeMillis") ? Math.max(a[i], b[i]) : a[i] + b[i];
      assertThat(components[i].getAccessor().invoke(sum)).as(components[i].getName()).isEqualTo(expected);
    }
  }

  private static Object[] boxed(long[] values) {
    Object[] boxed = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return boxed;
  }
}
