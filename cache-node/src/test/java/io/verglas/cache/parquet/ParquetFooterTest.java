package io.verglas.cache.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The footer of a real Parquet file (written by Iceberg 1.11 / parquet-java 1.17: nested and
 * repeated columns, ZSTD, several row groups), against the layout parquet-hadoop reports for it.
 */
class ParquetFooterTest {
  static byte[] resource(String name) throws IOException {
    try (InputStream in = ParquetFooterTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void readsTheLayoutParquetHadoopReports() throws IOException {
    byte[] file = resource("footer-sample.parquet");
    List<String> expected = new ArrayList<>();
    for (String line : new String(resource("footer-sample.expected.csv"), StandardCharsets.UTF_8).split("\n")) {
      if (!line.startsWith("#") && !line.isBlank()) {
        expected.add(line.trim());
      }
    }
    int suffix = ParquetFooter.suffixLength(Arrays.copyOfRange(file, file.length - 8, file.length));
    ParquetFooter footer = ParquetFooter.parseSuffix(Arrays.copyOfRange(file, file.length - suffix, file.length));
    List<String> actual = new ArrayList<>();
    for (ParquetFooter.RowGroup g : footer.rowGroups()) {
      for (ParquetFooter.ColumnChunk c : g.columns()) {
        actual.add(g.index() + "," + g.rows() + "," + c.path() + "," + c.start() + "," + c.length() + "," + c.values());
        assertThat(c.end()).isLessThanOrEqualTo(file.length - suffix);
      }
    }
    assertThat(actual).containsExactlyElementsOf(expected);
    assertThat(footer.rows()).isEqualTo(600);
  }

  @Test
  void refusesWhatIsNotAFooter() throws IOException {
    byte[] file = resource("footer-sample.parquet");
    assertThatThrownBy(() -> ParquetFooter.suffixLength(new byte[8]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PAR1");
    int suffix = ParquetFooter.suffixLength(Arrays.copyOfRange(file, file.length - 8, file.length));
    assertThatThrownBy(() -> ParquetFooter.parseSuffix(Arrays.copyOfRange(file, file.length - suffix + 100, file.length)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("suffix");
  }

  /** Damaged footers fail with IllegalArgumentException, never another exception or a hang. */
  @Property(tries = 500)
  void damagedFootersFailCleanly(@ForAll @IntRange(min = 0, max = 100_000) int seed) throws IOException {
    byte[] file = resource("footer-sample.parquet");
    int suffix = ParquetFooter.suffixLength(Arrays.copyOfRange(file, file.length - 8, file.length));
    byte[] footer = Arrays.copyOfRange(file, file.length - suffix, file.length - 8);
    Random random = new Random(seed);
    for (int i = 0; i < 1 + random.nextInt(4); i++) {
      footer[random.nextInt(footer.length)] = (byte) random.nextInt(256);
    }
    int length = random.nextInt(4) == 0 ? random.nextInt(footer.length) : footer.length;
    try {
      ParquetFooter.parse(footer, 0, length);
    } catch (IllegalArgumentException expected) {
      // fine: a clear refusal
    }
  }
}
