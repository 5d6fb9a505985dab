package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.parquet.ParquetFooter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The projection of heat onto replacement files, as a plan of blocks. */
class PrefetchPlannerTest {
  private static final int BLOCK = 100;

  /** A replacement file of partition p: column a at [0, 150), b at [150, 300), c at [300, 420). */
  private static FileLayout file(String name, String partition) {
    return FileLayout.of("db.t", partition, "s3://b/" + name, 450, List.of(
        new ParquetFooter.ColumnChunk("a", 0, 150, 1),
        new ParquetFooter.ColumnChunk("b", 150, 150, 1),
        new ParquetFooter.ColumnChunk("c", 300, 120, 1)));
  }

  private static HeatLedger.Heat heat(String partition, String column, double heat) {
    return new HeatLedger.Heat(new HeatCoordinates("db.t", partition, column), heat);
  }

  @Test
  void takesTheBlocksOfHotColumnsOfHotPartitionsOnly() {
    PrefetchPlanner.Plan plan = PrefetchPlanner.plan(List.of(file("f1", "p=1"), file("f2", "p=2")),
        List.of(heat("p=1", "c", 5), heat("p=2", "a", 3), heat("p=1", "b", 0.1)), 0.5, 10_000, BLOCK);
    assertThat(plan.blocks()).extracting(b -> b.location() + "#" + b.index())
        .containsExactly("s3://b/f1#3", "s3://b/f1#4", "s3://b/f2#0", "s3://b/f2#1");
    assertThat(plan.blocks().get(1).length()).isEqualTo(50); // the file's last, short block
    assertThat(plan.bytes()).isEqualTo(100 + 50 + 100 + 100);
  }

  @Test
  void aBlockSharedByTwoHotChunksIsReadOnce() {
    PrefetchPlanner.Plan plan = PrefetchPlanner.plan(List.of(file("f1", "p=1")),
        List.of(heat("p=1", "a", 2), heat("p=1", "b", 1)), 0.5, 10_000, BLOCK);
    assertThat(plan.blocks()).extracting(PrefetchPlanner.Block::index).containsExactly(0L, 1L, 2L);
  }

  @Test
  void theBudgetKeepsTheHottest() {
    PrefetchPlanner.Plan plan = PrefetchPlanner.plan(List.of(file("f1", "p=1")),
        List.of(heat("p=1", "a", 1), heat("p=1", "c", 9)), 0.5, 200, BLOCK);
    assertThat(plan.blocks()).extracting(PrefetchPlanner.Block::index).containsExactly(3L, 4L);
    assertThat(plan.chunksOverBudget()).isEqualTo(1);
  }

  @Test
  void noHeatNoPlan() {
    assertThat(PrefetchPlanner.plan(List.of(file("f1", "p=1")), List.of(), 0.5, 10_000, BLOCK))
        .isEqualTo(PrefetchPlanner.Plan.EMPTY);
  }

  @Test
  void aFileWithoutChunksIsTakenWholeByItsFileHeat() {
    FileLayout orc = FileLayout.opaque("db.t", "p=1", "s3://b/f.orc", 250);
    PrefetchPlanner.Plan plan = PrefetchPlanner.plan(List.of(orc),
        List.of(heat("p=1", HeatCoordinates.WHOLE_FILE, 1)), 0.5, 10_000, BLOCK);
    assertThat(plan.bytes()).isEqualTo(250);
  }
}
