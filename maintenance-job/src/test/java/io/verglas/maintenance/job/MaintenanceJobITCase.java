package io.verglas.maintenance.job;

import static io.verglas.maintenance.testing.TestingFiles.append;
import static io.verglas.maintenance.testing.TestingFiles.contents;
import static io.verglas.maintenance.testing.TestingFiles.deletePositions;
import static io.verglas.maintenance.testing.TestingFiles.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.status.MaintenanceStatus;
import io.verglas.maintenance.testing.TestingFeed;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole job on a MiniCluster: a commit on the change feed gets its table compacted and the
 * compaction announced on the feed; a table whose event was lost is found by the sweep.
 */
class MaintenanceJobITCase {
  static final Duration TIMEOUT = Duration.ofSeconds(90);

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
      new MiniClusterResourceConfiguration.Builder()
          .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

  @TempDir Path dir;

  static Table tableWithDeltas(Catalog catalog, String name) {
    Table table = TestingTables.createUsers(catalog, "db", name);
    table.updateProperties().set("verglas.maintenance.delete-file-count-threshold", "1")
        .set("verglas.maintenance.rewrite-pause-ms", "0").commit();
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      List<Record> rows = new ArrayList<>();
      for (int id = f * 10; id < f * 10 + 10; id++) {
        rows.add(user(table, id, "n" + id, "eu", id));
      }
      files.add(append(table, rows));
    }
    deletePositions(table, files.get(1), 2, 3);
    return table;
  }

  @Test
  void aCommitOnTheFeedGetsItsTableCompactedAndTheSweepFindsTheRest() throws Exception {
    compactsTheEventedTableThenTheSweptOne("evented", "silent");
  }

  /**
   * Tables whose names hold a dot are maintained too: the work item names them quoted
   * ({@code db.`orders.v2`}); splitting the name at every dot looked for table {@code v2} in
   * namespace {@code db.orders} and reported the table dropped.
   */
  @Test
  void tablesWhoseNamesHoldADotAreMaintained() throws Exception {
    compactsTheEventedTableThenTheSweptOne("orders.v2", "orders.v3");
  }

  private void compactsTheEventedTableThenTheSweptOne(String eventedName, String silentName)
      throws Exception {
    Catalog catalog = LocalTables.catalog(dir);
    Table evented = tableWithDeltas(catalog, eventedName);
    Table silent = tableWithDeltas(catalog, silentName);
    Map<Integer, String> eventedBefore = contents(evented);
    Map<Integer, String> silentBefore = contents(silent);
    try (TestingFeed feed = new TestingFeed(dir)) {
      feed.commit("db", eventedName, evented.currentSnapshot().snapshotId());
      MaintenanceConfig config = MaintenanceConfig.builder()
          .catalogProperties(LocalTables.catalogProperties(dir)).feedUri(feed.uri())
          .pollInterval(Duration.ofMillis(100)).sweepInterval(Duration.ofSeconds(8))
          .rewritePause(Duration.ofSeconds(1)).checkpointInterval(Duration.ofSeconds(1))
          .parallelism(2).build();
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      MaintenanceJob.build(env, config);
      JobClient job = env.executeAsync(MaintenanceJob.JOB_NAME);
      try {
        MaterializerFixture.await("the evented table compacted", TIMEOUT,
            () -> MaintenanceStatus.lastMaintenance(refreshed(evented)) != null);
        assertThat(MaintenanceStatus.lastMaintenance(refreshed(silent)))
            .as("no event, no sweep yet").isNull();
        MaterializerFixture.await("the silent table compacted by the sweep", TIMEOUT,
            () -> MaintenanceStatus.lastMaintenance(refreshed(silent)) != null);
      } finally {
        job.cancel().get();
      }
      assertCompacted(evented, eventedBefore);
      assertCompacted(silent, silentBefore);
      List<CatalogEvent> maintenanceEvents = feed.all().stream()
          .filter(CatalogEvent.class::isInstance).map(CatalogEvent.class::cast)
          .filter(e -> e.source().equals(MaintenanceEvents.SOURCE)).toList();
      assertThat(maintenanceEvents).extracting(CatalogEvent::table)
          .containsExactlyInAnyOrder(List.of("db", eventedName), List.of("db", silentName));
    }
  }

  private static void assertCompacted(Table table, Map<Integer, String> before) {
    MaintenanceStatus status = MaintenanceStatus.of(table);
    assertThat(status.deleteFiles()).isZero();
    assertThat(status.pendingGroups()).isZero();
    assertThat(contents(table)).isEqualTo(before);
    assertThat(table.currentSnapshot().summary())
        .containsEntry(Compactor.SUMMARY_KIND, Compactor.KIND_COMPACTION);
  }

  static Table refreshed(Table table) {
    table.refresh();
    return table;
  }
}
