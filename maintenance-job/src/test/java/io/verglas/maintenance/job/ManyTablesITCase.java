package io.verglas.maintenance.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import io.verglas.maintenance.testing.TestingFeed;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog of many tables (10 000 by default; 100 000 with {@code -Pscale}), metadata only:
 * every name is registered on one metadata file, in one SQL batch. Commits to 100 of them reach
 * the change feed, several times each, among events of the maintenance job's own commits: the
 * loop makes exactly one work item for each of those 100 tables and none for the rest, and its
 * heap does not grow with a second round of 100 other tables.
 */
class ManyTablesITCase {
  static final int TABLES = Integer.getInteger("verglas.scale.tables", 10_000);
  static final Map<String, Map<String, Integer>> ITEMS = new ConcurrentHashMap<>();

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
      new MiniClusterResourceConfiguration.Builder()
          .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

  @TempDir Path dir;

  @Test
  void onlyTheTablesThatChangedGetWork() throws Exception {
    Catalog catalog = LocalTables.catalog(dir);
    Table template = TestingTables.createUsers(catalog, "db", "template");
    register(dir.resolve("catalog.db"), template, TABLES);
    assertThat(catalog.listTables(Namespace.of("bulk"))).hasSize(TABLES);
    String run = dir.toString();
    ITEMS.put(run, new ConcurrentHashMap<>());

    try (TestingFeed feed = new TestingFeed(dir)) {
      MaintenanceConfig config = MaintenanceConfig.builder()
          .catalogProperties(LocalTables.catalogProperties(dir)).feedUri(feed.uri())
          .pollInterval(Duration.ofMillis(100)).sweepInterval(Duration.ZERO)
          .rewritePause(Duration.ofHours(1)).build();
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      MaintenanceJob.build(env, config, items -> items.map(new Counting(run)));
      JobClient job = env.executeAsync(MaintenanceJob.JOB_NAME);
      try {
        Set<String> first = publishRound(feed, 0);
        awaitItems(run, first.size());
        long heapAfterFirst = usedHeapAfterGc();
        Set<String> second = publishRound(feed, 1);
        Set<String> expected = new TreeSet<>(first);
        expected.addAll(second);
        awaitItems(run, expected.size());
        long heapAfterSecond = usedHeapAfterGc();
        Thread.sleep(1000); // late duplicates would show up now
        assertThat(new TreeSet<>(ITEMS.get(run).keySet())).isEqualTo(expected).hasSize(200);
        assertThat(ITEMS.get(run).values()).as("work items per table").containsOnly(1);
        assertThat(heapAfterSecond - heapAfterFirst).as("heap growth in bytes for 100 more tables")
            .isLessThan(32L << 20);
      } finally {
        job.cancel().get();
        ITEMS.remove(run);
      }
    }
  }

  /** 100 distinct tables, three commits each, plus 50 compactions of the job's own. */
  private static Set<String> publishRound(TestingFeed feed, int round) {
    Set<String> tables = new TreeSet<>();
    for (int i = 0; i < 100; i++) {
      int index = (i * 97 + round * 5003) % TABLES;
      tables.add("bulk.t" + index);
      for (int c = 0; c < 3; c++) {
        feed.commit("bulk", "t" + index, round * 1000L + i * 10 + c);
      }
    }
    for (int i = 0; i < 50; i++) {
      feed.feed().append(new CatalogEvent(UUID.randomUUID().toString(), MaintenanceEvents.SOURCE,
          Instant.now(), List.of("bulk", "t" + (TABLES - 1 - i)), UUID.randomUUID().toString(),
          i, null, "replace", 1, 0, Map.of("verglas.maintenance", "compaction"), null, 0));
    }
    return tables;
  }

  private static void awaitItems(String run, int count) throws InterruptedException {
    MaterializerFixture.await(count + " work items", Duration.ofSeconds(60),
        () -> ITEMS.get(run).size(), n -> n >= count);
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Registers {@code count} names on the template's metadata file in one transaction. */
  private static void register(Path db, Table template, int count) throws Exception {
    String metadata = ((BaseTable) template).operations().current().metadataFileLocation();
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      connection.setAutoCommit(false);
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO iceberg_tables"
          + " (catalog_name, table_namespace, table_name, metadata_location,"
          + " previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'TABLE')")) {
        for (int i = 0; i < count; i++) {
          insert.setString(1, "verglas");
          insert.setString(2, "bulk");
          insert.setString(3, "t" + i);
          insert.setString(4, metadata);
          insert.addBatch();
        }
        insert.executeBatch();
      }
      connection.commit();
    }
  }

  /** Counts work items per table (a throw here would only restart the job, so count). */
  static final class Counting implements MapFunction<WorkItem, WorkItem> {
    private static final long serialVersionUID = 1L;
    private final String run;

    Counting(String run) {
      this.run = run;
    }

    @Override
    public WorkItem map(WorkItem item) {
      ITEMS.get(run).merge(item.table(), 1, Integer::sum);
      return item;
    }
  }
}
