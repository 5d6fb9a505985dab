package io.verglas.maintenance.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.policy.MaintenancePolicy;
import io.verglas.maintenance.testing.ContentHash;
import io.verglas.materializer.MaterializerJob;
import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWal;
import io.verglas.materializer.testing.TestingWorkload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The materializer job upserts and deletes on a MiniCluster while our compactor rewrites the
 * same table over and over. Every compaction commit must hold exactly the rows its parent
 * snapshot holds (a replace adds and removes no row), each with the same row lineage, and in the
 * end the table equals the model of everything written.
 */
class CompactionUnderLoadITCase {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static final TableIdentifier NAME = TableIdentifier.of("db", "users");

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
      new MiniClusterResourceConfiguration.Builder()
          .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

  @RegisterExtension
  final MaterializerFixture world = new MaterializerFixture();

  @Test
  void everyCompactionCommitPreservesTheTableContent() throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users");
    TestingWal s1 = world.wal("ingest-1");
    TestingWal s2 = world.wal("ingest-2");
    TestingWorkload workload = new TestingWorkload(31, 40);
    // Compact as soon as there is anything to compact, pausing between rewrites of the table.
    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(8 << 20)
        .deleteFileCountThreshold(1).smallFileCountThreshold(2)
        .rewritePause(Duration.ofMillis(300)).build();
    Table compacted = world.catalog().loadTable(NAME);
    Compactor compactor = new Compactor(new MaintenanceEvents(event -> {}));
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger commits = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread maintenance = new Thread(() -> {
      try {
        while (running.get()) {
          CompactionResult result = compactor.compact(NAME, compacted, policy);
          commits.addAndGet(result.commits());
          Thread.sleep(policy.rewritePause().toMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    }, "maintenance");

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    MaterializerJob.build(env, world.config(world.checkpoints()).build());
    JobClient job = env.executeAsync(MaterializerJob.JOB_NAME);
    try {
      maintenance.start();
      for (int round = 0; round < 3; round++) {
        int before = commits.get();
        for (int i = 0; i < 4; i++) {
          workload.segment(i % 2 == 0 ? s1 : s2, users, 12);
          Thread.sleep(80);
        }
        MaterializerFixture.await("a compaction after round " + round, TIMEOUT,
            () -> commits.get() > before || failure.get() != null);
      }
      Map<Integer, String> model = workload.model();
      MaterializerFixture.await("the table equal to the model", TIMEOUT,
          () -> ContentHash.of(users, current(users)), ContentHash.ofModel(users, model)::equals);
    } finally {
      running.set(false);
      maintenance.join();
      job.cancel().get();
    }
    assertThat(failure.get()).as("maintenance thread failure").isNull();

    users.refresh();
    List<Snapshot> compactions = new ArrayList<>();
    for (Snapshot snapshot : users.snapshots()) {
      if ("compaction".equals(snapshot.summary().get(Compactor.SUMMARY_KIND))) {
        compactions.add(snapshot);
      }
    }
    assertThat(compactions).as("compaction commits").hasSizeGreaterThanOrEqualTo(3);
    assertThat(compactions).hasSize(commits.get());
    for (Snapshot snapshot : compactions) {
      assertThat(snapshot.operation()).isEqualTo("replace");
      if (!ContentHash.of(users, snapshot.snapshotId())
          .equals(ContentHash.of(users, snapshot.parentId()))) {
        assertThat(ContentHash.rows(users, snapshot.snapshotId()))
            .as("rows of compaction snapshot %s (%s) against its parent", snapshot.snapshotId(),
                snapshot.summary())
            .containsExactlyElementsOf(ContentHash.rows(users, snapshot.parentId()));
      }
      // Row lineage too: every row keeps its _row_id and _last_updated_sequence_number.
      assertThat(ContentHash.rowsWithLineage(users, snapshot.snapshotId()))
          .as("rows with lineage of compaction snapshot %s against its parent",
              snapshot.snapshotId())
          .containsExactlyElementsOf(ContentHash.rowsWithLineage(users, snapshot.parentId()));
    }
    assertThat(ContentHash.of(users, current(users)))
        .isEqualTo(ContentHash.ofModel(users, workload.model()));
  }

  private static long current(Table table) {
    table.refresh();
    return table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
  }
}
