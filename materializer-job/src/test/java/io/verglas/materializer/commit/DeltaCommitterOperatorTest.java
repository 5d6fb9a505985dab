package io.verglas.materializer.commit;

import static io.verglas.materializer.testing.LocalTables.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.io.Closeable;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committer operator: commits on checkpoint completion, and again (idempotently) on restore;
 * the tables of one checkpoint concurrently; keyed by table, so rescaled committers each commit
 * their own tables' pending deltas, in checkpoint order.
 */
class DeltaCommitterOperatorTest {
  static final int MAX_PARALLELISM = 128;
  @TempDir Path dir;
  Catalog catalog;
  Table table;

  @BeforeEach
  void setUp() {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.create(catalog, TableIdentifier.of("db", "users"), TestingTables.USERS,
        PartitionSpec.unpartitioned());
  }

  @AfterEach
  void tearDown() throws Exception {
    ((Closeable) catalog).close();
  }

  @Test
  void commitsCompletedCheckpointsOnceEvenWhenRestoredAfterTheCommit() throws Exception {
    // Partial segments, so the committer has no WAL objects to delete (there is no S3 here).
    TableDelta first = delta(1, 0, 2);
    TableDelta second = delta(2, 0, 4);
    OperatorSubtaskState state;
    try (var harness = harness()) {
      harness.open();
      harness.processElement(first, 0);
      state = harness.snapshot(1, 0);
      harness.processElement(second, 0); // arrives before checkpoint 1 is confirmed
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(snapshots()).isEqualTo(1);
      harness.snapshot(2, 0);
      harness.notifyOfCompletedCheckpoint(2);
      assertThat(snapshots()).isEqualTo(2);
    }
    // A restart from checkpoint 1 finds its delta committed already: nothing changes.
    try (var harness = harness()) {
      harness.initializeState(state);
      harness.open();
      assertThat(snapshots()).isEqualTo(2);
    }
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("verglas.wal-rows.s1", "4");
  }

  /**
   * Three tables in one checkpoint are committed at once: each commit waits, prepared, until
   * all three are (a barrier no sequential committer passes).
   */
  @Test
  void commitsTheTablesOfOneCheckpointConcurrently() throws Exception {
    List<Table> tables = List.of(table, create("orders"), create("items"));
    DeltaCommitterOperator operator = operator(3);
    try (var harness = keyed(operator, 1, 0)) {
      harness.open();
      CyclicBarrier allPrepared = new CyclicBarrier(tables.size());
      operator.committer().beforeCommit(t -> await(allPrepared));
      for (Table t : tables) {
        harness.processElement(delta(t, 1, 0, 2), 0);
      }
      harness.snapshot(1, 0);
      harness.notifyOfCompletedCheckpoint(1);
    }
    for (Table t : tables) {
      assertThat(snapshots(t)).as(t.name()).isEqualTo(1);
    }
  }

  /**
   * One table's commit fails while the others of its checkpoint succeed: the job fails, and the
   * restart from the checkpoint commits the failed table once and the others not again.
   */
  @Test
  void aFailureAmongTheTablesOfACheckpointLosesNothingAndRepeatsNothing() throws Exception {
    Table orders = create("orders");
    Table items = create("items");
    List<Table> tables = List.of(table, orders, items);
    OperatorSubtaskState state;
    DeltaCommitterOperator operator = operator(3);
    try (var harness = keyed(operator, 1, 0)) {
      harness.open();
      operator.committer().beforeCommit(t -> {
        if (t.uuid().equals(orders.uuid())) {
          throw new IllegalStateException("Cannot commit: injected failure");
        }
      });
      for (Table t : tables) {
        harness.processElement(delta(t, 1, 0, 2), 0);
      }
      state = harness.snapshot(1, 0);
      assertThatThrownBy(() -> harness.notifyOfCompletedCheckpoint(1))
          .hasMessageContaining("injected failure");
    }
    assertThat(List.of(snapshots(table), snapshots(orders), snapshots(items)))
        .containsExactly(1, 0, 1);

    try (var harness = keyed(operator(3), 1, 0)) {
      harness.initializeState(state);
      harness.open();
    }
    for (Table t : tables) {
      assertThat(snapshots(t)).as(t.name()).isEqualTo(1);
      assertThat(t.currentSnapshot().summary()).as(t.name())
          .containsEntry("verglas.wal-rows.s1", "2")
          .containsEntry("verglas.checkpoint-id", "1");
    }
  }

  /**
   * Rescaling moves a table's pending deltas with its key group: one committer's uncommitted
   * checkpoint is committed by three, each committing only its own tables; then three
   * committers' two uncommitted checkpoints are committed by two, each table's in checkpoint
   * order (the later one first would cover the earlier one's range and lose it).
   */
  @Test
  void rescaledCommittersCommitTheirOwnTablesOnceAndInOrder() throws Exception {
    List<Table> tables = new ArrayList<>(List.of(table));
    // keyed by random UUIDs: six tables leave one of three subtasks without a table 26% of
    // the time, so more are made until every subtask of three and of two owns one
    for (int i = 1; i < 6 || !spread(tables, 3) || !spread(tables, 2); i++) {
      tables.add(create("t" + i));
    }
    OperatorSubtaskState one;
    try (var harness = keyed(operator(2), 1, 0)) {
      harness.open();
      for (Table t : tables) {
        harness.processElement(delta(t, 1, 0, 2), 0);
      }
      one = harness.snapshot(1, 0); // then the job fails before the notification
    }
    assertThat(tables).allSatisfy(t -> assertThat(snapshots(t)).isZero());

    OperatorSubtaskState[] three = new OperatorSubtaskState[3];
    for (int subtask = 0; subtask < 3; subtask++) {
      try (var harness = keyed(operator(2), 3, subtask)) {
        harness.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
            one, MAX_PARALLELISM, 1, 3, subtask));
        harness.open();
        for (Table t : tables) {
          int owner = owner(t, 3);
          assertThat(snapshots(t)).as(t.name() + " after subtask " + subtask + " opened")
              .isEqualTo(owner <= subtask ? 1 : 0);
          if (owner == subtask) {
            harness.processElement(delta(t, 2, 0, 4), 0);
            harness.processElement(delta(t, 3, 0, 6), 0);
          }
        }
        harness.snapshot(2, 0);
        three[subtask] = harness.snapshot(3, 0); // neither notified
      }
    }
    assertThat(tables).extracting(t -> owner(t, 3)).as("tables spread over the subtasks")
        .containsAll(List.of(0, 1, 2));

    OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(three);
    for (int subtask = 0; subtask < 2; subtask++) {
      try (var harness = keyed(operator(2), 2, subtask)) {
        harness.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
            merged, MAX_PARALLELISM, 3, 2, subtask));
        harness.open();
      }
    }
    for (Table t : tables) {
      assertThat(checkpointIds(t)).as(t.name()).containsExactly("1", "2", "3");
      assertThat(t.currentSnapshot().summary()).as(t.name())
          .containsEntry("verglas.wal-rows.s1", "6");
    }
  }

  /**
   * A checkpoint of the single committer before it was keyed: its deltas in operator list
   * state, the same versioned bytes per delta. Restored at parallelism 1 they are committed,
   * and the next snapshot holds them only in keyed state.
   */
  @Test
  void restoresTheOperatorStateOfTheCommitterBeforeItWasKeyed() throws Exception {
    Table orders = create("orders");
    OperatorSubtaskState legacy;
    try (var harness = new OneInputStreamOperatorTestHarness<>(new LegacyCommitter())) {
      harness.open();
      harness.processElement(delta(1, 0, 2), 0);
      harness.processElement(delta(orders, 1, 0, 2), 0);
      harness.processElement(delta(2, 0, 4), 0);
      legacy = harness.snapshot(2, 0);
    }
    OperatorSubtaskState migrated;
    try (var harness = keyed(operator(2), 1, 0)) {
      harness.initializeState(legacy);
      harness.open();
      migrated = harness.snapshot(3, 0);
    }
    assertThat(checkpointIds(table)).containsExactly("1", "2");
    assertThat(checkpointIds(orders)).containsExactly("1");
    assertThat(migrated.getManagedOperatorState()).allSatisfy(handle ->
        assertThat(handle.getStateNameToPartitionOffsets().get(
            DeltaCommitterOperator.LEGACY_STATE).getOffsets()).isEmpty());
  }

  /** The operator state the committer kept before it was keyed, as it wrote it. */
  private static final class LegacyCommitter extends AbstractStreamOperator<Void>
      implements OneInputStreamOperator<TableDelta, Void> {
    private transient ListState<byte[]> state;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
      super.initializeState(context);
      state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>(
          DeltaCommitterOperator.LEGACY_STATE,
          PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(StreamRecord<TableDelta> element) throws Exception {
      state.add(PendingDeltas.serialize(element.getValue()));
    }
  }

  /** Whether every subtask of {@code parallelism} owns one of {@code tables}. */
  private static boolean spread(List<Table> tables, int parallelism) {
    return tables.stream().map(t -> owner(t, parallelism)).distinct().count() == parallelism;
  }

  private static int owner(Table table, int parallelism) {
    return KeyGroupRangeAssignment.assignKeyToParallelOperator(table.uuid().toString(),
        MAX_PARALLELISM, parallelism);
  }

  private static List<String> checkpointIds(Table table) {
    table.refresh();
    List<String> ids = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      ids.add(snapshot.summary().get("verglas.checkpoint-id"));
    }
    return ids;
  }

  private Table create(String name) {
    return TestingTables.create(catalog, TableIdentifier.of("db", name), TestingTables.USERS,
        PartitionSpec.unpartitioned());
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot commit: the other tables' commits did not start", e);
    }
  }

  private KeyedOneInputStreamOperatorTestHarness<String, TableDelta, Void> harness()
      throws Exception {
    return keyed(operator(1), 1, 0);
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, TableDelta, Void> keyed(
      DeltaCommitterOperator operator, int parallelism, int subtask) throws Exception {
    return new KeyedOneInputStreamOperatorTestHarness<>(operator, TableDelta::tableUuid,
        Types.STRING, MAX_PARALLELISM, parallelism, subtask);
  }

  private DeltaCommitterOperator operator(int committerThreads) {
    MaterializerConfig config = MaterializerConfig.builder()
        .catalogProperties(LocalTables.catalogProperties(dir))
        .objectStore(new ObjectStoreEndpoint(URI.create("http://127.0.0.1:1"), "us-east-1", "a",
            "s", "unused"))
        .committerThreads(committerThreads)
        .build();
    return new DeltaCommitterOperator(config);
  }

  private TableDelta delta(long checkpoint, long sequence, long rows) {
    return delta(table, checkpoint, sequence, rows);
  }

  private static TableDelta delta(Table table, long checkpoint, long sequence, long rows) {
    String json = LocalTables.json(table, LocalTables.write(table,
        List.of(user(table, (int) checkpoint, "u" + checkpoint, 1))));
    String name = "db." + table.name().substring(table.name().lastIndexOf('.') + 1);
    return new TableDelta(table.uuid().toString(), name, checkpoint, 0, List.of(json),
        Map.of(), Map.of(WalLayout.defaults().segmentKey("s1", sequence),
            new SegmentProgress("s1", sequence, rows, 10)));
  }

  private int snapshots() {
    return snapshots(table);
  }

  private static int snapshots(Table table) {
    table.refresh();
    int count = 0;
    for (var ignored : table.snapshots()) {
      count++;
    }
    return count;
  }
}
