package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.parquet.ParquetFooter;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Range reads of a real Parquet file (the footer sample) mapped to its columns. */
class FileLayoutTest {
  private final FileLayout layout = FileLayout.parquet("db.t", "day=1", "s3://b/k.parquet", 20_000, 7, footer());

  private static ParquetFooter footer() {
    try (InputStream in = FileLayoutTest.class.getResourceAsStream("/io/verglas/cache/parquet/footer-sample.parquet")) {
      byte[] file = in.readAllBytes();
      int suffix = ParquetFooter.suffixLength(Arrays.copyOfRange(file, file.length - 8, file.length));
      return ParquetFooter.parseSuffix(Arrays.copyOfRange(file, file.length - suffix, file.length));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private List<String> classify(long first, long last) {
    List<String> columns = new ArrayList<>();
    layout.classify(first, last, at -> {
      assertThat(at.table()).isEqualTo("db.t");
      assertThat(at.partition()).isEqualTo("day=1");
      columns.add(at.column());
    });
    return columns;
  }

  @Test
  void knowsItsFile() {
    assertThat(layout.table()).isEqualTo("db.t");
    assertThat(layout.partition()).isEqualTo("day=1");
    assertThat(layout.addedSequenceNumber()).isEqualTo(7);
    assertThat(layout.chunkCount()).isEqualTo(footer().rowGroups().stream().mapToInt(g -> g.columns().size()).sum());
  }

  @Test
  void aReadOfOneChunkIsItsColumn() {
    // id: [4, 563), name: [563, 1012), point.x: [1012, 3443) in the first row group
    assertThat(classify(4, 562)).containsExactly("id");
    assertThat(classify(600, 700)).containsExactly("name");
    assertThat(classify(1012, 1012)).containsExactly("point.x");
  }

  @Test
  void aReadAcrossChunksIsEveryColumnItTouches() {
    assertThat(classify(500, 1100)).containsExactly("id", "name", "point.x");
  }

  @Test
  void aReadCutShortCountsTheChunkItBeganInAndTheChunksDeliveredWhole() {
    List<String> columns = new ArrayList<>();
    layout.classifyCutShort(500, 1100, at -> columns.add(at.column()));
    assertThat(columns).as("name delivered whole, point.x only in part").containsExactly("id", "name");
    columns.clear();
    layout.classifyCutShort(600, 600, at -> columns.add(at.column()));
    assertThat(columns).as("the chunk it began in, however little arrived").containsExactly("name");
    columns.clear();
    layout.classifyCutShort(4, 1011, at -> columns.add(at.column()));
    assertThat(columns).as("a chunk ending at the cut").containsExactly("id", "name");
  }

  @Test
  void aReadOfTheMagicOrFooterAloneIsNoColumn() {
    assertThat(classify(0, 3)).isEmpty();
    assertThat(classify(19_990, 19_999)).isEmpty();
  }

  @Test
  void chunksOfOneColumnShareTheirCoordinates() {
    List<HeatCoordinates> ids = new ArrayList<>();
    layout.classify(0, Long.MAX_VALUE, at -> {
      if (at.column().equals("id")) {
        ids.add(at);
      }
    });
    assertThat(ids).hasSizeGreaterThan(1);
    assertThat(ids).allSatisfy(at -> assertThat(at).isSameAs(ids.get(0)));
  }

  @Test
  void aFileWithoutChunksCountsAsAWhole() {
    FileLayout opaque = FileLayout.opaque("db.t", "", "s3://b/k.orc", 100);
    List<String> columns = new ArrayList<>();
    opaque.classify(10, 20, at -> columns.add(at.column()));
    assertThat(columns).containsExactly(HeatCoordinates.WHOLE_FILE);
  }
}
