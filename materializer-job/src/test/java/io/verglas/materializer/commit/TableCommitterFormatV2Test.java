package io.verglas.materializer.commit;

import static io.verglas.materializer.testing.LocalTables.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.delta.DeletedRows;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWalStore;
import io.verglas.wal.WalLayout;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Format version 2 tables (for engines that cannot read V3 deletion vectors): file-scoped Parquet
 * position-delete files, and what happens when such a table is upgraded to version 3.
 */
class TableCommitterFormatV2Test {
  @TempDir Path dir;
  Catalog catalog;
  Table table;
  TableCommitter committer;
  long nextSegment;

  @BeforeEach
  void setUp() {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.create(catalog, TableIdentifier.of("db", "users"), TestingTables.USERS,
        PartitionSpec.unpartitioned(), 2);
    committer = new TableCommitter(new VerglasTables(catalog),
        new TestingWalStore(WalLayout.defaults()), event -> {}, "job-1");
  }

  @AfterEach
  void tearDown() throws IOException {
    ((Closeable) catalog).close();
  }

  @Test
  void deletesBecomeOneFileScopedParquetPositionDeleteFilePerDataFileAndCommit()
      throws IOException {
    DataFile first = LocalTables.write(table, List.of(user(table, 1, "a", 1),
        user(table, 2, "b", 1), user(table, 3, "c", 1), user(table, 4, "d", 1)));
    DataFile second = LocalTables.write(table, List.of(user(table, 5, "e", 1),
        user(table, 6, "f", 1)));
    commit(List.of(first, second), Map.of());

    DataFile updates = LocalTables.write(table, List.of(user(table, 3, "c2", 2),
        user(table, 1, "a2", 2), user(table, 6, "f2", 2)));
    commit(List.of(updates), Map.of(first.location(), DeletedRows.of(2, 0),
        second.location(), DeletedRows.of(1)));
    List<DeleteFile> deletes = liveDeletes();
    assertThat(deletes).hasSize(2).allSatisfy(file -> {
      assertThat(file.content()).isEqualTo(FileContent.POSITION_DELETES);
      assertThat(file.format()).isEqualTo(FileFormat.PARQUET);
    });
    DeleteFile ofFirst = deletes.stream()
        .filter(file -> first.location().equals(file.referencedDataFile())).findFirst().get();
    assertThat(ofFirst.recordCount()).isEqualTo(2);
    assertThat(positions(ofFirst)).containsExactly(first.location() + "#0",
        first.location() + "#2");
    assertThat(rows()).isEqualTo(Map.of(1, "a2/2", 2, "b/1", 3, "c2/2", 4, "d/1", 5, "e/1",
        6, "f2/2"));

    // A later delete in the same file adds a second delete file; the first one stays valid.
    commit(List.of(), Map.of(first.location(), DeletedRows.of(3)));
    assertThat(liveDeletes().stream()
        .filter(file -> first.location().equals(file.referencedDataFile()))).hasSize(2);
    assertThat(rows()).isEqualTo(Map.of(1, "a2/2", 2, "b/1", 3, "c2/2", 5, "e/1", 6, "f2/2"));
    assertThat(liveDeletes()).noneMatch(file -> file.format() == FileFormat.PUFFIN);
  }

  @Test
  void aFileWhoseEveryRowIsDeletedIsRemovedWithItsDeleteFiles() throws IOException {
    DataFile first = LocalTables.write(table, List.of(user(table, 1, "a", 1),
        user(table, 2, "b", 1), user(table, 3, "c", 1)));
    DataFile other = LocalTables.write(table, List.of(user(table, 4, "d", 1)));
    commit(List.of(first, other), Map.of());
    commit(List.of(), Map.of(first.location(), DeletedRows.of(0)));
    commit(List.of(), Map.of(first.location(), DeletedRows.of(1)));
    assertThat(liveDeletes()).hasSize(2);

    // Counted, the two earlier files and a repeat of position 1 reach the file's three rows;
    // read back, position 2 is still live: the file stays, masked by a third delete file.
    commit(List.of(), Map.of(first.location(), DeletedRows.of(1)));
    assertThat(liveDeletes()).hasSize(3);
    assertThat(rows()).isEqualTo(Map.of(3, "c/1", 4, "d/1"));

    commit(List.of(), Map.of(first.location(), DeletedRows.of(2)));
    assertThat(liveDeletes()).isEmpty();
    assertThat(rows()).isEqualTo(Map.of(4, "d/1"));
    assertThat(table.currentSnapshot().summary()).containsEntry("deleted-data-files", "1")
        .containsEntry("removed-position-delete-files", "3");
  }

  @Test
  void anUpgradeToVersion3FoldsTheFilesPositionDeletesIntoItsDeletionVector() throws IOException {
    DataFile first = LocalTables.write(table, List.of(user(table, 1, "a", 1),
        user(table, 2, "b", 1), user(table, 3, "c", 1), user(table, 4, "d", 1)));
    commit(List.of(first), Map.of());
    commit(List.of(), Map.of(first.location(), DeletedRows.of(0)));
    commit(List.of(), Map.of(first.location(), DeletedRows.of(1)));
    assertThat(liveDeletes()).hasSize(2);

    table.updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
    commit(List.of(), Map.of(first.location(), DeletedRows.of(2)));
    assertThat(liveDeletes()).singleElement().satisfies(dv -> {
      assertThat(dv.format()).isEqualTo(FileFormat.PUFFIN);
      assertThat(dv.referencedDataFile()).isEqualTo(first.location());
      assertThat(dv.recordCount()).isEqualTo(3);
    });
    assertThat(rows()).isEqualTo(Map.of(4, "d/1"));

    // The last row: a DV covering the whole file removes the file, and its DV with it.
    commit(List.of(), Map.of(first.location(), DeletedRows.of(3)));
    assertThat(liveDeletes()).isEmpty();
    assertThat(rows()).isEmpty();
    assertThat(table.currentSnapshot().summary()).containsEntry("deleted-data-files", "1");
  }

  private void commit(List<DataFile> files, Map<String, DeletedRows> deletes) {
    List<String> json = files.stream().map(f -> LocalTables.json(table, f)).toList();
    long sequence = nextSegment++;
    committer.commit(new TableDelta(table.uuid().toString(), "db.users", sequence + 1, 0, json,
        deletes, Map.of(WalLayout.defaults().segmentKey("s1", sequence),
            new SegmentProgress("s1", sequence, 1, 1))));
    table.refresh();
  }

  private List<DeleteFile> liveDeletes() {
    return TestingTables.liveDeletes(table);
  }

  /** The rows of a position-delete file in file order, as {@code path#position}. */
  private List<String> positions(DeleteFile file) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = FormatModelRegistry.<Record, Object>readBuilder(
        FileFormat.PARQUET, Record.class, table.io().newInputFile(file.location()))
        .project(DeleteSchemaUtil.pathPosSchema()).build()) {
      for (Record record : records) {
        rows.add(record.getField(MetadataColumns.DELETE_FILE_PATH.name()) + "#"
            + record.getField(MetadataColumns.DELETE_FILE_POS.name()));
      }
    }
    return rows;
  }

  private Map<Integer, String> rows() {
    Map<Integer, String> rows = new TreeMap<>();
    for (Record record : TestingTables.read(table)) {
      rows.put((Integer) record.getField("id"), record.getField("name") + "/"
          + record.getField("value"));
    }
    return rows;
  }
}
