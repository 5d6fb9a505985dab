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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committer operator: commits on checkpoint completion, and again (idempotently) on restore;
 * the tables of one checkpoint concurrently.
 */
class DeltaCommitterOperatorTest {
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
    try (var harness = new OneInputStreamOperatorTestHarness<>(operator)) {
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
    try (var harness = new OneInputStreamOperatorTestHarness<>(operator)) {
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

    try (var harness = new OneInputStreamOperatorTestHarness<>(operator(3))) {
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

  private OneInputStreamOperatorTestHarness<TableDelta, Void> harness() throws Exception {
    return new OneInputStreamOperatorTestHarness<>(operator(1));
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
