package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.parquet.ParquetFooter;
import java.util.List;
import org.junit.jupiter.api.Test;

class FileIndexTest {
  private static FileLayout file(String key, int chunks) {
    List<ParquetFooter.ColumnChunk> list = new java.util.ArrayList<>();
    for (int i = 0; i < chunks; i++) {
      list.add(new ParquetFooter.ColumnChunk("c" + i, 4 + i * 10L, 10, 1));
    }
    return FileLayout.of("db.t", "", "s3://b/" + key, 1000, list);
  }

  @Test
  void aCommitRetiresTheFilesItRemovesForOneGeneration() {
    FileIndex one = FileIndex.EMPTY.withTable("db.t", 1, List.of(file("old1", 2), file("old2", 2)), 100).index();
    FileIndex two = one.withTable("db.t", 2, List.of(file("new", 2)), 100).index();
    assertThat(two.lookup("b", "old1")).as("retired, still classified").isNotNull();
    assertThat(two.lookup("b", "new")).isNotNull();
    assertThat(two.table("db.t").retired()).hasSize(2);
    assertThat(two.table("db.t").snapshotId()).isEqualTo(2);
    FileIndex three = two.withTable("db.t", 3, List.of(file("new", 2)), 100).index();
    assertThat(three.lookup("b", "old1")).isNull();
    assertThat(three.chunks()).isEqualTo(2);
    assertThat(three.files()).isEqualTo(1);
    assertThat(one.lookup("b", "new")).as("an index never changes once built").isNull();
  }

  @Test
  void filesBeyondTheChunkBoundAreLeftOutAndCounted() {
    FileIndex.Update update = FileIndex.EMPTY.withTable("db.t", 1,
        List.of(file("a", 3), file("b", 3), file("c", 3)), 7);
    assertThat(update.filesNotIndexed()).isEqualTo(1);
    assertThat(update.index().chunks()).isEqualTo(6);
    assertThat(update.index().lookup("b", "c")).isNull();
  }

  @Test
  void otherTablesAreKept() {
    FileIndex one = FileIndex.EMPTY.withTable("db.t", 1, List.of(file("t1", 1)), 100).index();
    FileIndex two = one.withTable("db.u", 5, List.of(FileLayout.of("db.u", "", "s3://b/u1", 10, List.of())), 100).index();
    assertThat(two.lookup("b", "t1")).isNotNull();
    assertThat(two.lookup("b", "u1")).isNotNull();
  }

  @Test
  void tablesWithNoIndexedFilesHoldNoEntry() {
    FileIndex index = FileIndex.EMPTY.withTable("db.t", 1, List.of(file("t1", 1)), 100).index();
    for (int i = 0; i < 1_000; i++) {
      index = index.withTable("db.idle" + i, -1, List.of(), 100).index();
    }
    assertThat(index.tables()).as("only the written table").isEqualTo(1);
    assertThat(index.table("db.idle7")).isSameAs(FileIndex.Generation.NONE);

    FileIndex emptied = index.withTable("db.t", 2, List.of(), 100).index();
    assertThat(emptied.tables()).as("its file retired for one generation").isEqualTo(1);
    FileIndex gone = emptied.withTable("db.t", 3, List.of(), 100).index();
    assertThat(gone.tables()).isZero();
    assertThat(gone.files()).isZero();
  }
}
