package io.verglas.materializer.commit;

import static io.verglas.materializer.testing.LocalTables.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.CatalogEvent;
import io.verglas.materializer.commit.TableCommitter.Outcome;
import io.verglas.materializer.delta.DeletedRows;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWalStore;
import io.verglas.table.VerglasTableProperties;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committer against real tables (local warehouse): idempotence, DV merging, WAL marks. */
class TableCommitterTest {
  @TempDir Path dir;
  Catalog catalog;
  Table table;
  TestingWalStore store;
  List<CatalogEvent> events;
  TableCommitter committer;

  @BeforeEach
  void setUp() {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.create(catalog, TableIdentifier.of("db", "users"), TestingTables.USERS,
        PartitionSpec.unpartitioned());
    store = new TestingWalStore(WalLayout.defaults());
    events = new ArrayList<>();
    committer = new TableCommitter(new VerglasTables(catalog), store, events::add, "job-1");
  }

  @AfterEach
  void tearDown() throws IOException {
    ((java.io.Closeable) catalog).close();
  }

  @Test
  void committingTheSameDeltaTwiceChangesNothing() {
    DataFile file = LocalTables.write(table, List.of(user(table, 1, "a", 1), user(table, 2, "b", 1)));
    TableDelta delta = delta(1, List.of(file), Map.of(), segment("s1", 0, 2, 2));

    assertThat(committer.commit(delta).outcome()).isEqualTo(Outcome.COMMITTED);
    table.refresh();
    long snapshot = table.currentSnapshot().snapshotId();
    assertThat(committer.commit(delta).outcome()).isEqualTo(Outcome.ALREADY_COMMITTED);
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(rows()).isEqualTo(Map.of(1, "a/1", 2, "b/1"));
    assertThat(store.deleted()).contains(key("s1", 0));
    assertThat(events).extracting(CatalogEvent::id)
        .containsExactly(CatalogEvent.eventId(table.uuid().toString(), snapshot));
    CatalogEvent event = events.get(0);
    assertThat(event.table()).containsExactly("db", "users");
    assertThat(event.source()).isEqualTo(TableCommitter.EVENT_SOURCE);
    assertThat(event.metadataLocation()).endsWith(".metadata.json");
    assertThat(event.summary()).containsEntry("verglas.wal.s1", "0")
        .containsEntry("verglas.job-id", "job-1").containsEntry("verglas.checkpoint-id", "1");
  }

  @Test
  void deletesBecomeOneDeletionVectorPerFileMergedAcrossCommits() throws IOException {
    DataFile first = LocalTables.write(table,
        List.of(user(table, 1, "a", 1), user(table, 2, "b", 1), user(table, 3, "c", 1)));
    committer.commit(delta(1, List.of(first), Map.of(), segment("s1", 0, 3, 3)));

    DataFile second = LocalTables.write(table, List.of(user(table, 1, "a", 2)));
    TableDelta update = delta(2, List.of(second), Map.of(first.location(), new long[] {0}),
        segment("s1", 1, 1, 1));
    assertThat(committer.commit(update).outcome()).isEqualTo(Outcome.COMMITTED);
    assertThat(committer.commit(update).outcome()).isEqualTo(Outcome.ALREADY_COMMITTED);
    assertThat(dvs()).singleElement().satisfies(dv -> {
      assertThat(dv.referencedDataFile()).isEqualTo(first.location());
      assertThat(dv.recordCount()).isEqualTo(1);
    });

    // A second delete in the same file: the old DV is merged and replaced, never duplicated.
    committer.commit(delta(3, List.of(), Map.of(first.location(), new long[] {2}),
        segment("s1", 2, 1, 1)));
    assertThat(dvs()).singleElement().satisfies(dv -> {
      assertThat(dv.referencedDataFile()).isEqualTo(first.location());
      assertThat(dv.recordCount()).isEqualTo(2);
      assertThat(dv.format()).isEqualTo(FileFormat.PUFFIN);
    });

    // A file flushed early in a checkpoint and partly replaced in the same checkpoint.
    DataFile early = LocalTables.write(table, List.of(user(table, 4, "d", 1), user(table, 5, "e", 1)));
    DataFile late = LocalTables.write(table, List.of(user(table, 4, "d", 2)));
    committer.commit(delta(4, List.of(early, late), Map.of(early.location(), new long[] {0}),
        segment("s1", 3, 3, 3)));
    assertThat(rows()).isEqualTo(Map.of(1, "a/2", 2, "b/1", 4, "d/2", 5, "e/1"));
    assertThat(dvs()).hasSize(2);
  }

  @Test
  void aFileWhoseEveryRowIsDeletedIsRemovedInsteadOfMasked() throws IOException {
    DataFile first = LocalTables.write(table,
        List.of(user(table, 1, "a", 1), user(table, 2, "b", 1), user(table, 3, "c", 1)));
    DataFile other = LocalTables.write(table, List.of(user(table, 4, "d", 1)));
    committer.commit(delta(1, List.of(first, other), Map.of(), segment("s1", 0, 4, 4)));
    DataFile second = LocalTables.write(table, List.of(user(table, 1, "a", 2)));
    committer.commit(delta(2, List.of(second), Map.of(first.location(), new long[] {0}),
        segment("s1", 1, 1, 1)));
    assertThat(dvs()).singleElement().satisfies(dv -> assertThat(dv.recordCount()).isEqualTo(1));

    // The last two rows: with the DV's one, every row of the file; and one row of another file.
    DataFile third = LocalTables.write(table,
        List.of(user(table, 2, "b", 2), user(table, 3, "c", 2)));
    committer.commit(delta(3, List.of(third),
        Map.of(first.location(), new long[] {1, 2}, other.location(), new long[] {0}),
        segment("s1", 2, 2, 2)));

    assertThat(rows()).isEqualTo(Map.of(1, "a/2", 2, "b/2", 3, "c/2"));
    assertThat(TestingTables.liveDataFiles(table)).containsExactlyInAnyOrder(second.location(), third.location());
    assertThat(dvs()).isEmpty();
    assertThat(table.currentSnapshot().summary()).containsEntry("deleted-data-files", "2")
        .containsEntry("removed-dvs", "1");
    assertThat(puffinFiles()).as("no DV of the commit is referenced, so its file is gone")
        .hasSize(1);
  }

  @Test
  void aFileOfTheDeltaWhoseEveryRowIsDeletedInItIsNeverAdded() throws IOException {
    DataFile early = LocalTables.write(table,
        List.of(user(table, 1, "a", 1), user(table, 2, "b", 1)));
    DataFile late = LocalTables.write(table,
        List.of(user(table, 1, "a", 2), user(table, 2, "b", 2)));
    assertThat(committer.commit(delta(1, List.of(early, late),
        Map.of(early.location(), new long[] {0, 1}), segment("s1", 0, 4, 4))).outcome())
        .isEqualTo(Outcome.COMMITTED);

    assertThat(rows()).isEqualTo(Map.of(1, "a/2", 2, "b/2"));
    assertThat(TestingTables.liveDataFiles(table)).containsExactly(late.location());
    assertThat(dvs()).isEmpty();
    assertThat(Path.of(java.net.URI.create(early.location()))).doesNotExist();
  }

  @Test
  void partialSegmentsAreRecordedAndRecognised() {
    DataFile file = LocalTables.write(table, List.of(user(table, 1, "a", 1)));
    TableDelta partial = delta(1, List.of(file), Map.of(), segment("s1", 0, 2, 5));
    committer.commit(partial);
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("verglas.wal.s1", "-1")
        .containsEntry("verglas.wal-rows.s1", "2");
    assertThat(store.deleted()).isEmpty();
    assertThat(committer.commit(partial).outcome()).isEqualTo(Outcome.ALREADY_COMMITTED);

    DataFile rest = LocalTables.write(table, List.of(user(table, 2, "b", 1)));
    assertThat(committer.commit(delta(2, List.of(rest), Map.of(), segment("s1", 0, 5, 5))).outcome())
        .isEqualTo(Outcome.COMMITTED);
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("verglas.wal.s1", "0")
        .doesNotContainKey("verglas.wal-rows.s1");
    assertThat(store.deleted()).containsExactly(key("s1", 0));
  }

  @Test
  void everyStreamIsCarriedForward() {
    committer.commit(delta(1, List.of(LocalTables.write(table, List.of(user(table, 1, "a", 1)))),
        Map.of(), segment("s1", 4, 1, 1)));
    committer.commit(delta(2, List.of(LocalTables.write(table, List.of(user(table, 2, "b", 1)))),
        Map.of(), segment("s2", 0, 1, 1)));
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("verglas.wal.s1", "4")
        .containsEntry("verglas.wal.s2", "0");
  }

  @Test
  void aPartlyCommittedRangeFailsLoudly() {
    committer.commit(delta(1, List.of(LocalTables.write(table, List.of(user(table, 1, "a", 1)))),
        Map.of(), segment("s1", 0, 1, 1)));
    Map<String, SegmentProgress> both = new TreeMap<>(segment("s1", 0, 1, 1));
    both.putAll(segment("s1", 1, 1, 1));
    TableDelta overlapping = new TableDelta(table.uuid().toString(), "db.users", 2, 0,
        List.of(LocalTables.json(table, LocalTables.write(table, List.of(user(table, 2, "b", 1))))),
        Map.of(), both);
    assertThatThrownBy(() -> committer.commit(overlapping))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot commit checkpoint 2 to table db.users: only part of its WAL range");
  }

  @Test
  void keylessDeletesAgainstAFileThatIsGoneFailWithAClearMessage() {
    TableDelta orphan = delta(1, List.of(), Map.of("file:/nowhere.parquet", new long[] {0}),
        segment("s1", 0, 1, 1));
    assertThatThrownBy(() -> committer.commit(orphan))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot re-resolve deletes in file:/nowhere.parquet of table"
            + " db.users: the file was rewritten, the delta carries no keys");
  }

  @Test
  void deltasWithoutChangesOnlyReleaseTheirSegments() {
    TableDelta losers = delta(1, List.of(), Map.of(), segment("s1", 0, 3, 3));
    assertThat(committer.commit(losers).outcome()).isEqualTo(Outcome.NOTHING_TO_COMMIT);
    table.refresh();
    assertThat(table.currentSnapshot()).isNull();
    assertThat(store.deleted()).containsExactly(key("s1", 0));
  }

  @Test
  void theNextCommitRecordsWhatChangelessDeltasConsumed() {
    DataFile file = LocalTables.write(table, List.of(user(table, 1, "a", 1)));
    committer.commit(delta(1, List.of(file), Map.of(), segment("s1", 0, 1, 1)));
    // Stream s2 delivers only a row that loses: no snapshot, but its rows are consumed.
    assertThat(committer.commit(delta(2, List.of(), Map.of(), segment("s2", 0, 1, 1))).outcome())
        .isEqualTo(Outcome.NOTHING_TO_COMMIT);
    table.refresh();
    assertThat(table.currentSnapshot().summary()).doesNotContainKey("verglas.wal.s2");

    DataFile next = LocalTables.write(table, List.of(user(table, 2, "b", 1)));
    committer.commit(delta(3, List.of(next), Map.of(), segment("s1", 1, 1, 1)));
    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry("verglas.wal.s1", "1").containsEntry("verglas.wal.s2", "0");
  }

  @Test
  void consumedMarksAreKeptForABoundedNumberOfTablesTheOldestForgottenFirst() {
    TableCommitter bounded = new TableCommitter(new VerglasTables(catalog), store, events::add,
        "job-1", TableCommitter.MAX_ATTEMPTS_DEFAULT, 2);
    List<Table> tables = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      Table t = TestingTables.create(catalog, TableIdentifier.of("db", name), TestingTables.USERS,
          PartitionSpec.unpartitioned());
      tables.add(t);
      assertThat(bounded.commit(new TableDelta(t.uuid().toString(), "db." + name, 1, 0, List.of(),
          Map.of(), segment("s2", 0, 1, 1))).outcome()).isEqualTo(Outcome.NOTHING_TO_COMMIT);
    }
    assertThat(bounded.consumedTables()).isEqualTo(2);

    // db.a's consumed mark was forgotten (as by a restart), db.c's is still recorded
    for (int i : new int[] {0, 2}) {
      Table t = tables.get(i);
      DataFile file = LocalTables.write(t, List.of(user(t, 1, "x", 1)));
      bounded.commit(new TableDelta(t.uuid().toString(), "db." + "abc".charAt(i), 2, 0,
          List.of(LocalTables.json(t, file)), Map.of(), segment("s1", 0, 1, 1)));
      t.refresh();
    }
    assertThat(tables.get(0).currentSnapshot().summary()).containsEntry("verglas.wal.s1", "0")
        .doesNotContainKey("verglas.wal.s2");
    assertThat(tables.get(2).currentSnapshot().summary()).containsEntry("verglas.wal.s1", "0")
        .containsEntry("verglas.wal.s2", "0");
    assertThat(bounded.consumedTables()).isEqualTo(1);
  }

  /**
   * The summary names the keys of the batches each commit makes durable: a batch split by a
   * checkpoint counts in the commit that completes it; unkeyed batches count in neither.
   */
  @Test
  void theSummaryNamesTheIdempotencyKeysOfTheBatchesCommitted() {
    // segment s1/0: batch "a" (2 rows), an unkeyed batch (1 row), batch "b" (2 rows)
    store.put(key("s1", 0), WalSegmentCodec.encode(
        new WalSegmentHeader(table.uuid().toString(), List.of("db", "users"), 0, "s1", 0, 5, 1, 3, 0),
        List.of(new WalBatch(1, 2, "a", new byte[0]), new WalBatch(2, 1, null, new byte[0]),
            new WalBatch(3, 2, "b", new byte[0]))));
    DataFile first = LocalTables.write(table, List.of(user(table, 1, "a", 1), user(table, 2, "b", 1),
        user(table, 3, "c", 1), user(table, 4, "d", 1)));
    committer.commit(delta(1, List.of(first), Map.of(), segment("s1", 0, 4, 5)));
    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEYS, "[\"a\"]")
        .containsEntry(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEY_COUNT, "1");

    DataFile rest = LocalTables.write(table, List.of(user(table, 5, "e", 1)));
    TableDelta completing = delta(2, List.of(rest), Map.of(), segment("s1", 0, 5, 5));
    committer.commit(completing);
    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEYS, "[\"b\"]");
    assertThat(CommittedKeys.render(java.util.Collections.nCopies(10_000, "k")))
        .hasSizeLessThanOrEqualTo(CommittedKeys.MAX_SUMMARY_CHARS);
  }

  @Test
  void unmanagedTablesAreNotTouched() {
    Table foreign = catalog.createTable(TableIdentifier.of("db", "foreign"), TestingTables.USERS);
    TableDelta delta = new TableDelta(foreign.uuid().toString(), "db.foreign", 1, 0, List.of(),
        Map.of(), segment("s1", 0, 1, 1));
    assertThat(committer.commit(delta).outcome()).isEqualTo(Outcome.TABLE_UNAVAILABLE);
    assertThat(store.deleted()).isEmpty();
  }

  private TableDelta delta(long checkpoint, List<DataFile> files, Map<String, long[]> deletes,
      Map<String, SegmentProgress> segments) {
    Map<String, DeletedRows> rows = new TreeMap<>();
    deletes.forEach((path, positions) -> rows.put(path, DeletedRows.of(positions)));
    return keyedDelta(checkpoint, files, rows, segments);
  }

  private TableDelta keyedDelta(long checkpoint, List<DataFile> files,
      Map<String, DeletedRows> deletes, Map<String, SegmentProgress> segments) {
    List<String> json = files.stream().map(f -> LocalTables.json(table, f)).toList();
    return new TableDelta(table.uuid().toString(), "db.users", checkpoint, 0, json, deletes,
        segments);
  }

  private static Map<String, SegmentProgress> segment(String stream, long sequence, long rows,
      long total) {
    return Map.of(key(stream, sequence), new SegmentProgress(stream, sequence, rows, total));
  }

  private static String key(String stream, long sequence) {
    return WalLayout.defaults().segmentKey(stream, sequence);
  }

  private Map<Integer, String> rows() {
    Map<Integer, String> rows = new TreeMap<>();
    for (Record record : TestingTables.read(table)) {
      rows.put((Integer) record.getField("id"), record.getField("name") + "/" + record.getField("value"));
    }
    return rows;
  }

  private List<DeleteFile> dvs() {
    return TestingTables.liveDeletes(table);
  }

  private List<Path> puffinFiles() throws IOException {
    try (var paths = java.nio.file.Files.walk(dir)) {
      return paths.filter(path -> path.toString().endsWith(".puffin")).toList();
    }
  }
}
