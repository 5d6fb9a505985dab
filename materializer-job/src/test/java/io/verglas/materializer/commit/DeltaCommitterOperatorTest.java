package io.verglas.materializer.commit;

import static io.verglas.materializer.testing.LocalTables.user;
import static org.assertj.core.api.Assertions.assertThat;

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

/** The committer operator: commits on checkpoint completion, and again (idempotently) on restore. */
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

  private OneInputStreamOperatorTestHarness<TableDelta, Void> harness() throws Exception {
    MaterializerConfig config = MaterializerConfig.builder()
        .catalogProperties(LocalTables.catalogProperties(dir))
        .objectStore(new ObjectStoreEndpoint(URI.create("http://127.0.0.1:1"), "us-east-1", "a",
            "s", "unused"))
        .build();
    return new OneInputStreamOperatorTestHarness<>(new DeltaCommitterOperator(config));
  }

  private TableDelta delta(long checkpoint, long sequence, long rows) {
    String json = LocalTables.json(table, LocalTables.write(table,
        List.of(user(table, (int) checkpoint, "u" + checkpoint, 1))));
    return new TableDelta(table.uuid().toString(), "db.users", checkpoint, 0, List.of(json),
        Map.of(), Map.of(WalLayout.defaults().segmentKey("s1", sequence),
            new SegmentProgress("s1", sequence, rows, 10)));
  }

  private int snapshots() {
    table.refresh();
    int count = 0;
    for (var ignored : table.snapshots()) {
      count++;
    }
    return count;
  }
}
