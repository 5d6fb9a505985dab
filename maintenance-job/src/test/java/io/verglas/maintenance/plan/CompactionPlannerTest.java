package io.verglas.maintenance.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.maintenance.policy.MaintenancePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CompactionPlannerTest {
  /** target 1000, small below 750, large above 1800; groups up to 5000 input bytes. */
  static final MaintenancePolicy POLICY = MaintenancePolicy.builder()
      .targetFileSizeBytes(1000).maxGroupBytes(5000).deleteFileCountThreshold(3)
      .deleteRatioThreshold(0.25).smallFileCountThreshold(4).build();
  final CompactionPlanner planner = new CompactionPlanner(POLICY);

  static FileState file(String path, String partition, long size, long rows, long deleted,
      int deleteFiles) {
    return new FileState(path, partition, size, rows, deleted, deleteFiles);
  }

  static FileState base(String path, String partition) {
    return file(path, partition, 1000, 100, 0, 0);
  }

  @Test
  void aTableWithinPolicyNeedsNothing() {
    List<FileState> files = List.of(base("a", "p"), base("b", "p"),
        file("c", "p", 100, 10, 0, 0), file("d", "p", 1000, 100, 10, 1));
    assertThat(planner.plan(1, files).isEmpty()).isTrue();
  }

  @Test
  void aFileWhoseDeletesReachTheRatioIsRewrittenAlone() {
    FileState heavy = file("a", "p", 1000, 100, 25, 1);
    CompactionPlan plan = planner.plan(7, List.of(heavy, base("b", "p")));
    assertThat(plan.snapshotId()).isEqualTo(7);
    assertThat(plan.groups()).singleElement().satisfies(group -> {
      assertThat(group.files()).containsExactly(heavy);
      assertThat(group.reasons()).isEqualTo(Set.of(RewriteReason.APPLY_DELETES));
      assertThat(group.outputFiles()).isEqualTo(1);
    });
  }

  @Test
  void enoughDeleteFilesInAPartitionRewriteEveryFileWithDeletes() {
    List<FileState> files = List.of(file("a", "p", 1000, 100, 1, 1),
        file("b", "p", 1000, 100, 1, 1), file("c", "p", 1000, 100, 1, 1), base("d", "p"),
        file("e", "q", 1000, 100, 1, 1));
    CompactionPlan plan = planner.plan(1, files);
    assertThat(plan.groups()).singleElement().satisfies(group -> {
      assertThat(group.partition()).isEqualTo("p");
      assertThat(group.files()).extracting(FileState::path).containsExactlyInAnyOrder("a", "b", "c");
    });
  }

  @Test
  void smallFilesMergeOnceTheyReachTheCountAndJoinAnyRewrite() {
    List<FileState> four = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      four.add(file("s" + i, "p", 200, 20, 0, 0));
    }
    assertThat(planner.plan(1, four.subList(0, 3)).isEmpty()).isTrue();
    CompactionPlan merged = planner.plan(1, four);
    assertThat(merged.groups()).singleElement().satisfies(group -> {
      assertThat(group.files()).hasSize(4);
      assertThat(group.reasons()).containsExactly(RewriteReason.MERGE_SMALL);
      assertThat(group.outputFiles()).isEqualTo(1);
    });

    List<FileState> withDeletes = new ArrayList<>(four.subList(0, 2));
    withDeletes.add(file("d", "p", 1000, 100, 50, 1));
    assertThat(planner.plan(1, withDeletes).groups()).singleElement()
        .satisfies(group -> assertThat(group.files()).hasSize(3));
  }

  @Test
  void aLargeFileIsSplitIntoFilesAtMostTheTarget() {
    FileState large = file("big", "p", 5400, 540, 0, 0);
    CompactionPlan plan = planner.plan(1, List.of(large));
    assertThat(plan.groups()).singleElement().satisfies(group -> {
      assertThat(group.reasons()).containsExactly(RewriteReason.SPLIT_LARGE);
      assertThat(group.outputFiles()).isEqualTo(6);
    });
    // Deleted rows do not count: 5400 bytes with a third deleted make 4 files.
    FileState partlyDeleted = file("big", "p", 5400, 540, 180, 1);
    assertThat(planner.plan(1, List.of(partlyDeleted)).groups().get(0).outputFiles())
        .isEqualTo(4);
  }

  @Test
  void selectedFilesArePackedIntoGroupsOfBoundedInput() {
    List<FileState> files = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      files.add(file("f" + i, "p", 1000, 100, 50, 1));
    }
    CompactionPlan plan = planner.plan(1, files);
    assertThat(plan.groups()).hasSize(3);
    assertThat(plan.groups()).allSatisfy(group -> assertThat(group.inputBytes()).isLessThanOrEqualTo(5000));
    assertThat(plan.inputFiles()).isEqualTo(12);
    assertThat(plan.inputBytes()).isEqualTo(12000);
  }

  @Test
  void aLoneSmallFileLeftByPackingIsNotRewritten() {
    MaintenancePolicy tight = POLICY.toBuilder().maxGroupBytes(2000).build();
    List<FileState> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(file("s" + i, "p", 600, 60, 0, 0));
    }
    CompactionPlan plan = new CompactionPlanner(tight).plan(1, files);
    // 600+600+600 fit in 2000, the fourth would be alone: it waits for company.
    assertThat(plan.groups()).singleElement()
        .satisfies(group -> assertThat(group.files()).hasSize(3));
  }

  @Test
  void theSamePlanForTheSameInput() {
    List<FileState> files = List.of(file("a", "p", 100, 10, 5, 1), file("b", "p", 100, 10, 0, 0),
        file("c", "q", 4000, 400, 0, 0));
    assertThat(planner.plan(3, files)).isEqualTo(planner.plan(3, files));
  }
}
