package io.verglas.maintenance.compact;

import static io.verglas.maintenance.testing.TestingFiles.append;
import static io.verglas.maintenance.testing.TestingFiles.contents;
import static io.verglas.maintenance.testing.TestingFiles.deletePositions;
import static io.verglas.maintenance.testing.TestingFiles.lineage;
import static io.verglas.maintenance.testing.TestingFiles.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.plan.CompactionPlan;
import io.verglas.maintenance.plan.SnapshotFiles;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactorTest {
  static final TableIdentifier NAME = TableIdentifier.of("db", "users");

  @TempDir Path dir;
  Table table;
  final List<CatalogEvent> events = new ArrayList<>();
  final Compactor compactor = new Compactor(new MaintenanceEvents(events::add));

  @BeforeEach
  void create() {
    Catalog catalog = LocalTables.catalog(dir);
    table = TestingTables.createUsers(catalog, "db", "users");
  }

  List<Record> rows(int from, int count, String region) {
    List<Record> rows = new ArrayList<>();
    for (int id = from; id < from + count; id++) {
      rows.add(user(table, id, "n" + id, region, id * 10L));
    }
    return rows;
  }

  @Test
  void deletionVectorsAreAppliedIntoNewBaseFilesAndRemoved() {
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      files.add(append(table, rows(i * 20, 20, "eu")));
    }
    append(table, rows(1000, 20, "us"));
    deletePositions(table, files.get(0), 0, 5);
    deletePositions(table, files.get(2), 19);
    deletePositions(table, files.get(4), 1, 2, 3);
    Map<Integer, String> before = contents(table);
    assertThat(before).hasSize(114);

    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(1 << 20)
        .deleteFileCountThreshold(3).build();
    CompactionResult result = compactor.compact(NAME, table, policy);

    assertThat(result.commits()).isEqualTo(1);
    assertThat(result.conflicts()).isZero();
    assertThat(contents(table)).isEqualTo(before);
    Snapshot snapshot = table.currentSnapshot();
    assertThat(snapshot.operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(snapshot.summary()).containsEntry("verglas.maintenance", "compaction")
        .containsEntry("verglas.maintenance.reasons", "APPLY_DELETES,MERGE_SMALL")
        .containsEntry("removed-delete-files", "3");
    // The eu partition became one file, with no deletes left; us is untouched (one small file).
    List<FileScanTask> tasks = tasks(table);
    assertThat(tasks).hasSize(2).allSatisfy(task -> assertThat(task.deletes()).isEmpty());
    assertThat(result.filesRewritten()).isEqualTo(5);
    assertThat(result.groups().get(0).deleteFilesRemoved()).isEqualTo(3);
    assertThat(events).singleElement().satisfies(event -> {
      assertThat(event.snapshotId()).isEqualTo(snapshot.snapshotId());
      assertThat(event.operation()).isEqualTo("replace");
      assertThat(event.table()).containsExactly("db", "users");
      assertThat(event.source()).isEqualTo(MaintenanceEvents.SOURCE);
    });

    // Within policy now: a second pass has nothing to do.
    assertThat(compactor.compact(NAME, table, policy).groups()).isEmpty();
  }

  @Test
  void rowLineageIsCarriedOverUnchanged() {
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(append(table, rows(i * 10, 10, "eu")));
    }
    deletePositions(table, files.get(1), 0, 3);
    Map<Integer, List<Long>> before = lineage(table);
    assertThat(before).hasSize(38);
    // Four appends: ids 0..39 (two deleted), sequence numbers 1..4 by file.
    assertThat(before.values().stream().map(l -> l.get(0)).distinct()).hasSize(38);
    assertThat(before.values().stream().map(l -> l.get(1)).distinct()).hasSize(4);

    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(1 << 20)
        .smallFileCountThreshold(2).build();
    assertThat(compactor.compact(NAME, table, policy).commits()).isEqualTo(1);

    assertThat(tasks(table)).singleElement();
    assertThat(lineage(table)).isEqualTo(before);
    // A second rewrite reads the explicit values the first one wrote.
    append(table, rows(100, 10, "eu"));
    Map<Integer, List<Long>> beforeSecond = lineage(table);
    assertThat(compactor.compact(NAME, table, policy).commits()).isEqualTo(1);
    assertThat(tasks(table)).singleElement();
    assertThat(lineage(table)).isEqualTo(beforeSecond);
  }

  @Test
  void aFormatVersion2TableIsCompactedWithoutLineage(@TempDir Path other) throws IOException {
    Table v2 = TestingTables.createUsers(LocalTables.catalog(other), "db", "v2", 2);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<Record> rows = new ArrayList<>();
      for (int id = i * 10; id < i * 10 + 10; id++) {
        rows.add(user(v2, id, "n" + id, "eu", id));
      }
      files.add(append(v2, rows));
    }
    Map<Integer, String> before = contents(v2);
    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(1 << 20)
        .smallFileCountThreshold(2).build();
    assertThat(compactor.compact(TableIdentifier.of("db", "v2"), v2, policy).commits())
        .isEqualTo(1);
    assertThat(contents(v2)).isEqualTo(before);
    // No lineage columns in a format version 2 file (their metrics would name them).
    assertThat(tasks(v2)).hasSize(1);
    try (CloseableIterable<FileScanTask> scan = v2.newScan().includeColumnStats().planFiles()) {
      assertThat(scan).singleElement().satisfies(task -> assertThat(task.file().valueCounts())
          .containsKey(v2.schema().findField("id").fieldId())
          .doesNotContainKey(MetadataColumns.ROW_ID.fieldId()));
    }
  }

  @Test
  void aBaseFileThreeTimesTheMaximumIsSplitIntoFilesWithinBounds() {
    Random random = new Random(42);
    List<Record> rows = new ArrayList<>();
    for (int id = 0; id < 30_000; id++) {
      rows.add(user(table, id, Long.toHexString(random.nextLong()), "eu", random.nextLong()));
    }
    DataFile big = append(table, rows);
    Map<Integer, String> before = contents(table);
    long max = big.fileSizeInBytes() / 3;
    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(max * 3 / 4)
        .minFileSizeBytes(max / 2).maxFileSizeBytes(max).maxGroupBytes(big.fileSizeInBytes())
        .build();

    CompactionResult result = compactor.compact(NAME, table, policy);

    assertThat(result.commits()).isEqualTo(1);
    assertThat(table.currentSnapshot().summary())
        .containsEntry("verglas.maintenance.reasons", "SPLIT_LARGE");
    List<FileScanTask> tasks = tasks(table);
    // Cut by rows: about 3 / (3/4) = 4 files of the target size (5 when rounding leaves a few
    // bytes over), each within bounds; none is a small remainder.
    assertThat(tasks).hasSizeBetween(4, 5).allSatisfy(task -> assertThat(task.file().fileSizeInBytes())
        .as("size of %s", task.file().location())
        .isBetween(policy.minFileSizeBytes(), policy.maxFileSizeBytes()));
    assertThat(contents(table)).isEqualTo(before);
  }

  @Test
  void aGroupInvalidatedByAConcurrentDeleteIsAbandonedWhole() throws IOException {
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      files.add(append(table, rows(i * 20, 20, "eu")));
    }
    deletePositions(table, files.get(0), 3);
    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(1 << 20)
        .deleteRatioThreshold(0.01).build();
    SnapshotFiles read = SnapshotFiles.current(table);
    CompactionPlan plan = Compactor.plan(read, policy);
    assertThat(plan.groups()).hasSize(1);
    long dataFilesBefore = parquetFiles();

    // The materializer replaces a row of another file of the group meanwhile.
    deletePositions(table, files.get(1), 7);
    Map<Integer, String> before = contents(table);
    Snapshot current = table.currentSnapshot();

    GroupOutcome outcome = compactor.rewrite(NAME, table, read, plan.groups().get(0));

    assertThat(outcome.committed()).isFalse();
    assertThat(outcome.conflict()).contains("found new position delete for replaced data file");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(current.snapshotId());
    assertThat(contents(table)).isEqualTo(before);
    assertThat(parquetFiles()).as("the abandoned group's new files are deleted")
        .isEqualTo(dataFilesBefore);
    assertThat(events).isEmpty();
  }

  private long parquetFiles() throws IOException {
    try (Stream<Path> files = Files.walk(dir.resolve("warehouse"))) {
      return files.filter(p -> p.toString().endsWith(".parquet")).count();
    }
  }

  static List<FileScanTask> tasks(Table table) {
    table.refresh();
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> scan = table.newScan().planFiles()) {
      scan.forEach(tasks::add);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return tasks;
  }
}
