package io.verglas.materializer;

import static io.verglas.materializer.testing.TestingWal.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** End to end on a MiniCluster: WAL segments in, Iceberg tables with DVs out. */
class MaterializerITCase {
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      MaterializerFixture.miniCluster(1, 2);

  @RegisterExtension
  final MaterializerFixture world = new MaterializerFixture();

  @Test
  void materializesUpsertsDeletesAndAppendsWithDeletionVectors() throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users");
    Table events = TestingTables.createEvents(world.catalog(), "db", "events");
    TestingWal s1 = world.wal("ingest-1");
    TestingWal s2 = world.wal("ingest-2");
    long early = TestingWal.tick(); // older than everything s1 writes below

    // Interval 1: inserts, and duplicates of keys 2 and 3 inside the same segment.
    s1.segment(users)
        .batch(user(1, "a", "eu", 1), user(2, "b", "eu", 1), user(3, "c", "us", 1),
            user(4, "d", "us", 1), user(5, "e", "eu", 1))
        .batch(user(2, "b2", "eu", 2), user(3, "c2", "us", 2))
        .put();
    s1.segment(events).batch(event(1, "x"), event(2, "y"), event(3, "z")).put();

    JobClient job = start(world.config(world.checkpoints()).build());
    try {
      awaitUsers(users, Map.of(1, "a/eu/1", 2, "b2/eu/2", 3, "c2/us/2", 4, "d/us/1", 5, "e/eu/1"));

      // Interval 2: updates of committed keys (need DVs), a delete, a key that moves to another
      // partition, and a late row for key 5 from a stream whose clock is behind: it loses.
      s1.segment(users)
          .batch(user(1, "a3", "eu", 3), row("id", 4, "_op", "D"), user(6, "f", "us", 1),
              user(2, "b4", "us", 4))
          .put();
      s2.segment(users).batchAt(early, user(5, "stale", "eu", 0)).put();
      s1.segment(events).batch(event(4, "w")).put();
      awaitUsers(users, Map.of(1, "a3/eu/3", 2, "b4/us/4", 3, "c2/us/2", 5, "e/eu/1", 6, "f/us/1"));

      // Interval 3: a second update of an already deleted-from file (merges with its DV), and a
      // delete of a key written in the same interval.
      s1.segment(users)
          .batch(user(3, "c5", "us", 5), user(7, "g", "eu", 1))
          .batch(row("id", 7, "_op", "D"), user(1, "a6", "eu", 6))
          .put();
      Map<Integer, String> expected =
          Map.of(1, "a6/eu/6", 2, "b4/us/4", 3, "c5/us/5", 5, "e/eu/1", 6, "f/us/1");
      awaitUsers(users, expected);

      MaterializerFixture.await("4 events", TIMEOUT, () -> TestingTables.read(events).size(),
          size -> size == 4);
      MaterializerFixture.await("all WAL segments deleted", TIMEOUT, world::walKeys, List::isEmpty);
    } finally {
      stop(job);
    }

    users.refresh();
    assertThat(users(users)).isEqualTo(new TreeMap<>(Map.of(1, "a6/eu/6", 2, "b4/us/4",
        3, "c5/us/5", 5, "e/eu/1", 6, "f/us/1")));
    assertThat(TestingTables.read(events).stream().map(r -> r.getField("msg"))
        .collect(Collectors.toList())).containsExactlyInAnyOrder("x", "y", "z", "w");

    // Five committed versions were replaced or deleted (key 1 twice, 2, 3, 4): each by a DV or,
    // when a DV would have covered its whole file, with the file. Which of the two depends on
    // how rows fell into files and checkpoints, so both are counted, and every DV written is
    // checked; the live ones are at most one per data file.
    assertThat(rowsDeletedByPosition(users)).isGreaterThanOrEqualTo(5);
    assertThat(addedDeletes(users)).allSatisfy(file -> {
      assertThat(file.content()).isEqualTo(FileContent.POSITION_DELETES);
      assertThat(file.format()).isEqualTo(FileFormat.PUFFIN);
      assertThat(file.referencedDataFile()).isNotNull();
    });
    assertThat(TestingTables.liveDeletes(users).stream().collect(Collectors.groupingBy(
        DeleteFile::referencedDataFile, Collectors.counting())).values())
        .allMatch(count -> count == 1);

    Snapshot current = users.currentSnapshot();
    assertThat(current.summary()).containsKey("verglas.wal.ingest-1");
    // ingest-2's only row lost to a newer version; even when its segment reached a checkpoint
    // of its own (nothing to commit), the table's next commit records its mark.
    assertThat(current.summary()).containsKey("verglas.wal.ingest-2");
    assertThat(current.summary()).containsKeys("verglas.job-id", "verglas.checkpoint-id");
    assertThat(world.events()).extracting(CatalogEvent::id)
        .contains(CatalogEvent.eventId(users.uuid().toString(), current.snapshotId()));
  }

  @Test
  void rowIdsStayWithTheirKeysThroughUpdatesOnARunningJob() throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users");
    TestingWal wal = world.wal("ingest-1");
    wal.segment(users).batch(users(1, 40, "v1", 1)).put();
    JobClient job = start(world.config(world.checkpoints()).build());
    try {
      awaitValues(users, 40, 1);
      Map<Integer, List<Long>> inserted = lineage(users);
      assertThat(inserted.values().stream().map(l -> l.get(0)).distinct()).hasSize(40);

      // Updates of half the keys (some move to the other partition), then at once (likely
      // before their commit) updates of some of them again, and a new key.
      wal.segment(users).batch(users(1, 20, "v2", 2)).put();
      wal.segment(users).batch(users(1, 10, "v3", 3)).batch(user(41, "new", "eu", 3)).put();
      MaterializerFixture.await("41 keys, 1..10 at v3", TIMEOUT, () -> users(users),
          rows -> rows.size() == 41 && rows.get(10).startsWith("v3") && rows.get(20)
              .startsWith("v2"));
      Map<Integer, List<Long>> updated = lineage(users);
      long insertedSequence = inserted.get(1).get(1);
      for (int key = 1; key <= 40; key++) {
        assertThat(updated.get(key).get(0)).as("row id of key %s", key)
            .isEqualTo(inserted.get(key).get(0));
        if (key <= 20) {
          assertThat(updated.get(key).get(1)).as("sequence of key %s", key)
              .isGreaterThan(insertedSequence);
        } else {
          assertThat(updated.get(key)).as("lineage of key %s", key).isEqualTo(inserted.get(key));
        }
      }
      assertThat(inserted.values().stream().map(l -> l.get(0)))
          .doesNotContain(updated.get(41).get(0));
      // The change log: rows changed since the insert's snapshot are exactly those written.
      assertThat(updated.entrySet().stream().filter(e -> e.getValue().get(1) > insertedSequence)
          .map(Map.Entry::getKey).sorted().toList())
          .containsExactlyElementsOf(java.util.stream.IntStream.concat(
              java.util.stream.IntStream.rangeClosed(1, 20), java.util.stream.IntStream.of(41))
              .boxed().toList());
    } finally {
      stop(job);
    }
  }

  /** Keys {@code from..to} named {@code name}, alternating partitions by the version. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object>[] users(int from, int to, String name, long value) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int key = from; key <= to; key++) {
      rows.add(user(key, name, (key + value) % 2 == 0 ? "eu" : "us", value));
    }
    return rows.toArray(new Map[0]);
  }

  private static void awaitValues(Table users, int keys, long value) throws InterruptedException {
    MaterializerFixture.await(keys + " keys at " + value, TIMEOUT, () -> users(users),
        rows -> rows.size() == keys && rows.values().stream().allMatch(r -> r.endsWith("/"
            + value)));
  }

  /** id → [_row_id, _last_updated_sequence_number], as Iceberg's reader gives them. */
  private static Map<Integer, List<Long>> lineage(Table users) {
    Map<Integer, List<Long>> rows = new TreeMap<>();
    for (Record record : TestingTables.readWithLineage(users)) {
      rows.put((Integer) record.getField("id"), List.of((Long) record.getField("_row_id"),
          (Long) record.getField("_last_updated_sequence_number")));
    }
    return rows;
  }

  @Test
  void aNullableColumnAddedMidStreamIsMaterializedAndOldRowsReadItAsNull() throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users");
    Table before = world.catalog().loadTable(TableIdentifier.of("db", "users"));
    TestingWal wal = world.wal("ingest-1");
    wal.segment(users).batch(user(1, "a", "eu", 1), user(2, "b", "us", 1), user(3, "c", "eu", 1))
        .put();
    JobClient job = start(world.config(world.checkpoints()).build());
    try {
      awaitUsers(users, Map.of(1, "a/eu/1", 2, "b/us/1", 3, "c/eu/1"));

      users.updateSchema().addColumn("email", Types.StringType.get()).commit();
      users.refresh();
      long since = users.currentSnapshot().sequenceNumber();
      // Segments written after the change carry the column (the ingest side validates against
      // the new schema); an update of an old row, a new row, and a row without an email.
      wal.segment(users)
          .batch(row("id", 2, "name", "b2", "region", "us", "value", 2L, "email", "b@x"),
              row("id", 4, "name", "d", "region", "eu", "value", 1L, "email", "d@x"),
              row("id", 5, "name", "e", "region", "us", "value", 1L))
          .put();
      // A segment from an ingest node that still had the old schema: its rows read null there.
      wal.segment(before).batch(user(3, "c2", "eu", 2)).put();
      Map<Integer, String> expected = Map.of(1, "a/eu/1/null", 2, "b2/us/2/b@x",
          3, "c2/eu/2/null", 4, "d/eu/1/d@x", 5, "e/us/1/null");
      MaterializerFixture.await("users with emails", TIMEOUT, () -> withEmail(users),
          expected::equals);

      // The data files written after the change have the column.
      int emailId = users.schema().findField("email").fieldId();
      List<DataFile> newFiles = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks =
          users.newScan().includeColumnStats().planFiles()) {
        for (FileScanTask task : tasks) {
          if (task.file().fileSequenceNumber() > since) {
            newFiles.add(task.file());
          }
        }
      }
      assertThat(newFiles).isNotEmpty().allSatisfy(file ->
          assertThat(file.valueCounts()).containsKey(emailId));
    } finally {
      stop(job);
    }
  }

  /**
   * A table whose name holds a dot ({@code orders.v2} in namespace {@code demo}) gets its rows,
   * and the table whose levels the joined name would also read as ({@code v2} in namespace
   * {@code demo.orders}) gets none of them. Rebuilding the identifier by splitting the joined
   * name at dots found no table (or the wrong one) and skipped acknowledged rows.
   */
  @Test
  void aTableWhoseNameHoldsADotGetsItsRows() throws Exception {
    TableIdentifier dotted = TableIdentifier.of(Namespace.of("demo"), "orders.v2");
    Table orders = TestingTables.create(world.catalog(), dotted, TestingTables.USERS,
        PartitionSpec.unpartitioned());
    Table nested = TestingTables.create(world.catalog(),
        TableIdentifier.of(Namespace.of("demo", "orders"), "v2"), TestingTables.USERS,
        PartitionSpec.unpartitioned());
    TestingWal wal = world.wal("ingest-1");
    wal.segment(orders, List.of("demo", "orders.v2"))
        .batch(user(1, "a", "eu", 1), user(2, "b", "us", 1)).put();
    JobClient job = start(world.config(world.checkpoints()).build());
    try {
      awaitUsers(orders, Map.of(1, "a/eu/1", 2, "b/us/1"));
      wal.segment(orders, List.of("demo", "orders.v2")).batch(user(2, "b2", "us", 2)).put();
      awaitUsers(orders, Map.of(1, "a/eu/1", 2, "b2/us/2"));
      MaterializerFixture.await("all WAL segments deleted", TIMEOUT, world::walKeys, List::isEmpty);
    } finally {
      stop(job);
    }
    nested.refresh();
    assertThat(nested.currentSnapshot()).as("the look-alike table got nothing").isNull();
    orders.refresh();
    assertThat(world.events()).filteredOn(e -> e.tableUuid().equals(orders.uuid().toString()))
        .isNotEmpty().allSatisfy(e -> assertThat(e.table()).containsExactly("demo", "orders.v2"));
  }

  static Map<Integer, String> withEmail(Table users) {
    Map<Integer, String> rows = new TreeMap<>();
    for (Record record : TestingTables.read(users)) {
      String previous = rows.put((Integer) record.getField("id"), record.getField("name") + "/"
          + record.getField("region") + "/" + record.getField("value") + "/"
          + record.getField("email"));
      assertThat(previous).as("duplicate key %s", record.getField("id")).isNull();
    }
    return rows;
  }

  static JobClient start(MaterializerConfig config) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    MaterializerJob.build(env, config);
    return env.executeAsync(MaterializerJob.JOB_NAME);
  }

  /** Cancels the job and waits until it has stopped, so a next job never overlaps with it. */
  static void stop(JobClient job) throws Exception {
    job.cancel().get();
    MaterializerFixture.await("job " + job.getJobID() + " stopped", TIMEOUT,
        () -> job.getJobStatus().join(), status -> status.isGloballyTerminalState());
  }

  static void awaitUsers(Table users, Map<Integer, String> expected) throws InterruptedException {
    MaterializerFixture.await("users " + expected, TIMEOUT, () -> users(users),
        actual -> actual.equals(new TreeMap<>(expected)));
  }

  /** id → "name/region/value"; fails on duplicate keys. */
  static Map<Integer, String> users(Table users) {
    Map<Integer, String> rows = new TreeMap<>();
    for (Record record : TestingTables.read(users)) {
      String previous = rows.put((Integer) record.getField("id"), record.getField("name") + "/"
          + record.getField("region") + "/" + record.getField("value"));
      assertThat(previous).as("duplicate key %s", record.getField("id")).isNull();
    }
    return rows;
  }

  static Map<String, Object> user(int id, String name, String region, long value) {
    return row("id", id, "name", name, "region", region, "value", value);
  }

  static Map<String, Object> event(long ts, String msg) {
    return row("ts", ts, "msg", msg);
  }

  /**
   * Every delete file any snapshot of the table added, live or not: a DV that later covered its
   * whole file went with the file, so the live ones need not show what was written.
   */
  static List<DeleteFile> addedDeletes(Table table) {
    table.refresh();
    List<DeleteFile> deletes = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      snapshot.addedDeleteFiles(table.io()).forEach(deletes::add);
    }
    return deletes;
  }

  /**
   * Rows deleted by position over the table's history: DV cardinalities as added (a merged DV
   * counts its earlier positions again) plus the rows of removed data files. At least the number
   * of committed versions that were replaced or deleted.
   */
  static long rowsDeletedByPosition(Table table) {
    return TestingTables.summaryTotal(table, snapshot -> true, "added-position-deletes",
        "deleted-records");
  }
}
