package io.verglas.materializer.commit;

import static io.verglas.materializer.testing.LocalTables.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.materializer.commit.TableCommitter.Outcome;
import io.verglas.materializer.delta.DeletedRows;
import io.verglas.materializer.delta.KeyRows;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingCompactor;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deletes against data files that another writer rewrote (a compaction with Iceberg's core
 * {@code RewriteFiles}): the committer finds the rows again by key, on both format versions.
 */
class TableCommitterRelocationTest {
  @TempDir Path dir;
  Catalog catalog;
  Table table;
  TestingWalStore store;
  List<CatalogEvent> events;
  TableCommitter committer;
  TestingCompactor compactor = new TestingCompactor(42);
  long nextSegment;

  void setUp(int formatVersion) {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.create(catalog, TableIdentifier.of("db", "users"), TestingTables.USERS,
        PartitionSpec.unpartitioned(), formatVersion);
    store = new TestingWalStore(WalLayout.defaults());
    events = new ArrayList<>();
    committer = new TableCommitter(new VerglasTables(catalog), store, events::add, "job-1");
  }

  @AfterEach
  void tearDown() throws IOException {
    ((Closeable) catalog).close();
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void deletesOfARewrittenFileAreFoundAgainByKey(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2, 3, 4, 5);
    assertThat(compactor.compact(table)).isTrue();

    // The writer's index still points at the first file: key 2 at position 1, key 4 at 3.
    DataFile update = LocalTables.write(table, List.of(user(table, 2, "b2", 2)));
    assertThat(commit(List.of(update), Map.of(first.location(), keyed(1, 2, 3, 4))).outcome())
        .isEqualTo(Outcome.COMMITTED);
    assertThat(rows()).isEqualTo(Map.of(1, "u1/1", 2, "b2/2", 3, "u3/1", 5, "u5/1"));
    assertThat(table.currentSnapshot().summary())
        .containsEntry(TableCommitter.SUMMARY_RELOCATED_ROWS, "2");

    // Chained: rewritten again, and the index entry of key 5 is still the first file.
    assertThat(compactor.compact(table)).isTrue();
    assertThat(compactor.compact(table)).isTrue();
    commit(List.of(), Map.of(first.location(), keyed(4, 5), update.location(), keyed(0, 2)));
    assertThat(rows()).isEqualTo(Map.of(1, "u1/1", 3, "u3/1"));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void aCompactionCommittedDuringTheCommitMakesItRetryAgainstTheNewSnapshot(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2, 3);
    AtomicInteger races = compactDuringFirstAttempt();
    DataFile update = LocalTables.write(table, List.of(user(table, 3, "c2", 2)));
    assertThat(commit(List.of(update), Map.of(first.location(), keyed(2, 3))).outcome())
        .isEqualTo(Outcome.COMMITTED);
    assertThat(races.get()).isEqualTo(2); // the first attempt lost to the compaction
    assertThat(rows()).isEqualTo(Map.of(1, "u1/1", 2, "u2/1", 3, "c2/2"));
    assertThat(table.currentSnapshot().summary())
        .containsEntry(TableCommitter.SUMMARY_RELOCATED_ROWS, "1");
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void aCompactionThatReadBeforeOurDeletesIsRefusedInsteadOfResurrectingRows(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2, 3);
    TestingCompactor.Plan plan = compactor.prepare(table);
    commit(List.of(), Map.of(first.location(), keyed(0, 1)));
    assertThat(plan.commit()).isFalse();
    assertThat(rows()).isEqualTo(Map.of(2, "u2/1", 3, "u3/1"));
    assertThat(compactor.compact(table)).isTrue();
    assertThat(rows()).isEqualTo(Map.of(2, "u2/1", 3, "u3/1"));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void aFileEmptiedWhileACompactionRewritesItIsEmptiedInTheRewrittenFile(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2, 3);
    AtomicInteger races = compactDuringFirstAttempt();
    DataFile update = LocalTables.write(table, List.of(user(table, 2, "b2", 2)));
    assertThat(commit(List.of(update), Map.of(first.location(), keyed(0, 1, 1, 2, 2, 3))).outcome())
        .isEqualTo(Outcome.COMMITTED);
    assertThat(races.get()).isEqualTo(2);
    assertThat(rows()).isEqualTo(Map.of(2, "b2/2"));
    assertThat(TestingTables.liveDataFiles(table)).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(ints = {3})
  void aCompactionThatReadAFileWeEmptiedIsRefused(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2);
    DataFile second = commitUsers(3);
    TestingCompactor.Plan plan = compactor.prepare(table);
    commit(List.of(), Map.of(first.location(), keyed(0, 1, 1, 2)));
    assertThat(TestingTables.liveDataFiles(table)).containsExactly(second.location());
    assertThat(plan.commit()).isFalse();
    assertThat(rows()).isEqualTo(Map.of(3, "u3/1"));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void rowsAreFoundWhenTheRewriteIsOlderThanTheRetainedHistory(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2, 3, 4);
    assertThat(compactor.compact(table)).isTrue();
    commitUsers(7);
    table.expireSnapshots().retainLast(1).expireOlderThan(Long.MAX_VALUE).cleanExpiredFiles(false)
        .commit();
    table.refresh();
    assertThat(table.currentSnapshot().parentId()).isNotNull();
    assertThat(table.snapshot(table.currentSnapshot().parentId())).isNull();

    commit(List.of(), Map.of(first.location(), keyed(0, 1, 3, 4)));
    assertThat(rows()).isEqualTo(Map.of(2, "u2/1", 3, "u3/1", 7, "u7/1"));
  }

  @ParameterizedTest
  @ValueSource(ints = {3})
  void keylessDeltasOfAnOlderVersionReadTheKeysFromTheOldFile(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2, 3);
    assertThat(compactor.compact(table)).isTrue();
    commit(List.of(), Map.of(first.location(), DeletedRows.of(1)));
    assertThat(rows()).isEqualTo(Map.of(1, "u1/1", 3, "u3/1"));
  }

  @ParameterizedTest
  @ValueSource(ints = {3})
  void aKeyWithoutALiveRowIsSkipped(int formatVersion) {
    setUp(formatVersion);
    DataFile first = commitUsers(1, 2);
    assertThat(compactor.compact(table)).isTrue();
    DataFile added = LocalTables.write(table, List.of(user(table, 9, "i", 1)));
    assertThat(commit(List.of(added), Map.of(first.location(), keyed(5, 9))).outcome())
        .isEqualTo(Outcome.COMMITTED);
    assertThat(rows()).isEqualTo(Map.of(1, "u1/1", 2, "u2/1", 9, "i/1"));
  }

  /**
   * Makes the committer's first attempt race a compaction that commits after the attempt read
   * the snapshot; returns the count of attempts.
   */
  private AtomicInteger compactDuringFirstAttempt() {
    AtomicInteger attempts = new AtomicInteger();
    committer.beforeCommit(t -> {
      if (attempts.getAndIncrement() == 0) {
        assertThat(compactor.compact(t)).isTrue();
      }
    });
    return attempts;
  }

  /** Commits a file of users {@code u<id>/1}; returns it. */
  private DataFile commitUsers(int... ids) {
    List<Record> users = new ArrayList<>();
    for (int id : ids) {
      users.add(user(table, id, "u" + id, 1));
    }
    DataFile file = LocalTables.write(table, users);
    assertThat(commit(List.of(file), Map.of()).outcome()).isEqualTo(Outcome.COMMITTED);
    return file;
  }

  private TableCommitter.Result commit(List<DataFile> files, Map<String, DeletedRows> deletes) {
    List<String> json = files.stream().map(f -> LocalTables.json(table, f)).toList();
    long sequence = nextSegment++;
    String key = WalLayout.defaults().segmentKey("s1", sequence);
    TableCommitter.Result result = committer.commit(new TableDelta(table.uuid().toString(),
        "db.users", sequence + 1, 0, json, deletes,
        Map.of(key, new SegmentProgress("s1", sequence, 1, 1))));
    table.refresh();
    return result;
  }

  /** Deleted rows given as (position, id) pairs, each with its key. */
  private DeletedRows keyed(int... positionsAndIds) {
    DeletedRows.Builder rows = DeletedRows.builder();
    for (int i = 0; i < positionsAndIds.length; i += 2) {
      Record key = user(table, positionsAndIds[i + 1], null, 0);
      rows.add(positionsAndIds[i], KeyRows.payload(key, table.schema()));
    }
    return rows.build();
  }

  private Map<Integer, String> rows() {
    Map<Integer, String> rows = new TreeMap<>();
    for (Record record : TestingTables.read(table)) {
      String previous = rows.put((Integer) record.getField("id"),
          record.getField("name") + "/" + record.getField("value"));
      assertThat(previous).as("duplicate key %s", record.getField("id")).isNull();
    }
    return rows;
  }
}
