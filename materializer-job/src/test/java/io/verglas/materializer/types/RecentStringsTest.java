package io.verglas.materializer.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class RecentStringsTest {
  @Test
  void writtenStringsReadBackEqualAndRecentOnesAsTheSameInstance() throws IOException {
    SplittableRandom random = new SplittableRandom(3);
    List<String> pool = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pool.add("s3://bucket/table/data/file-" + i + "-é€.parquet");
    }
    pool.add(null);
    RecentStrings writer = new RecentStrings(3);
    DataOutputSerializer recent = new DataOutputSerializer(64);
    DataOutputSerializer once = new DataOutputSerializer(64);
    List<String> written = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      String value = pool.get(random.nextInt(pool.size()));
      if (value != null && random.nextInt(4) == 0) {
        value = new String(value); // equal but another instance
      }
      writer.write(value, recent);
      RecentStrings.writeOnce(value, once);
      written.add(value);
    }

    assertThat(recent.getCopyOfBuffer()).isEqualTo(once.getCopyOfBuffer());
    RecentStrings reader = new RecentStrings(3);
    DataInputDeserializer in = new DataInputDeserializer(recent.getCopyOfBuffer());
    String previous = null;
    for (String expected : written) {
      String read = reader.read(in);
      assertThat(read).isEqualTo(expected);
      if (read != null && read.equals(previous)) {
        assertThat(read).isSameAs(previous);
      }
      previous = read;
    }
  }

  @Test
  void capacityMustBePositive() {
    assertThatThrownBy(() -> new RecentStrings(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity must be positive: 0");
  }
}
