package io.verglas.materializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWal;
import io.verglas.materializer.testing.TestingWorkload;
import io.verglas.catalog.Catalogs;
import java.io.Closeable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One job, many tables: 1 000 tables exist in the catalog, 20 of them get traffic. The 20 must
 * match their models, the other 980 must stay untouched (no snapshot), and the job's per-table
 * memory must follow the active tables only (the writer's buffers and table cache, exposed as
 * gauges, never exceed the 20).
 */
class MaterializerManyTablesITCase {
  static final int TABLES = 1000;
  static final int ACTIVE = 20;
  static final int KEYS = 40;
  static final Duration TIMEOUT = Duration.ofSeconds(60);
  static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      MaterializerFixture.miniCluster(1, 2, METRICS.addToConfiguration(new Configuration()));

  @RegisterExtension
  final MaterializerFixture world = new MaterializerFixture();

  @Test
  void twentyActiveTablesAmongAThousandAreMaterializedAndTheIdleOnesCostNothing()
      throws Exception {
    long setup = System.nanoTime();
    createTables();
    System.out.printf("Created %d tables in %.1f s%n", TABLES, (System.nanoTime() - setup) / 1e9);
    // Active tables spread over the whole range: t0000, t0052, t0105, ..., t0999.
    Map<Table, TestingWorkload> active = new LinkedHashMap<>();
    for (int i = 0; i < ACTIVE; i++) {
      Table table = world.catalog().loadTable(
          TableIdentifier.of("db", name(i * (TABLES - 1) / (ACTIVE - 1))));
      active.put(table, new TestingWorkload(1000L + i, KEYS));
    }
    assertThat(active).hasSize(ACTIVE);
    TestingWal s1 = world.wal("ingest-1");
    TestingWal s2 = world.wal("ingest-2");

    // Before the job: two segments per active table, spread over two streams.
    active.forEach((table, workload) -> {
      workload.segment(s1, table, 30);
      workload.segment(s2, table, 30);
    });
    JobClient job = MaterializerITCase.start(world.config(world.checkpoints()).build());
    try {
      awaitModels(active);
      // While it runs: updates of committed keys (deletion vectors), in more checkpoints.
      active.forEach((table, workload) -> workload.segment(s2, table, 25));
      active.forEach((table, workload) -> workload.segment(s1, table, 25));
      awaitModels(active);
      MaterializerFixture.await("all WAL segments committed", TIMEOUT,
          world::uncommittedWalKeys, List::isEmpty);

      List<OperatorMetricGroup> writers =
          METRICS.findOperatorMetricGroups(job.getJobID(), "Delta writer");
      assertThat(writers).as("writer metric groups").isNotEmpty();
      long loaded = 0;
      for (OperatorMetricGroup writer : writers) {
        Map<String, Metric> metrics = METRICS.getMetricsByGroup(writer);
        long peak = gauge(metrics, "peakBufferedTables");
        long cached = gauge(metrics, "loadedTables");
        assertThat(peak).as("tables buffered at once by one writer").isBetween(0L, (long) ACTIVE);
        assertThat(cached).as("tables loaded by one writer").isBetween(0L, (long) ACTIVE);
        assertThat(gauge(metrics, "bufferedTables")).as("tables buffered after draining")
            .isZero();
        loaded += cached;
      }
      // Every active table was loaded by the writer subtask(s) its keys hash to.
      assertThat(loaded).isGreaterThanOrEqualTo(ACTIVE);
    } finally {
      MaterializerITCase.stop(job);
    }

    for (Map.Entry<Table, TestingWorkload> entry : active.entrySet()) {
      assertThat(MaterializerITCase.users(entry.getKey()))
          .as("table %s", entry.getKey().name()).isEqualTo(entry.getValue().model());
    }
    // Untouched: a table's catalog row still points at its creation metadata (any commit, even
    // one without a snapshot, would have moved it), and a sample has no snapshot.
    Map<String, String> locations = metadataLocations();
    assertThat(locations).hasSize(TABLES);
    List<String> activeNames = active.keySet().stream()
        .map(t -> t.name().substring(t.name().lastIndexOf('.') + 1)).toList();
    List<String> touched = new ArrayList<>();
    locations.forEach((table, location) -> {
      boolean created = location.substring(location.lastIndexOf('/') + 1).startsWith("00000-");
      if (activeNames.contains(table) == created) {
        touched.add(table + " -> " + location);
      }
    });
    assertThat(touched).as("tables whose metadata moved iff they are active").isEmpty();
    for (int i = 1; i < TABLES; i += 97) {
      Table table = world.catalog().loadTable(TableIdentifier.of("db", name(i)));
      if (!activeNames.contains(name(i))) {
        assertThat(table.snapshots()).as("snapshots of idle table %s", name(i)).isEmpty();
      }
    }
  }

  /**
   * Creates the 1 000 tables from 4 threads, each through its own catalog whose SQLite connection
   * skips fsync (setup speed only; the job's catalog is the fixture's, unchanged).
   */
  private void createTables() throws Exception {
    Map<String, String> props = new HashMap<>(world.catalogProperties());
    props.put("jdbc.journal_mode", "WAL");
    props.put("jdbc.synchronous", "OFF");
    TestingTables.createUsers(world.catalog(), "db", name(0)); // creates the namespace first
    int threads = 4;
    // connected one at a time: a connection switching SQLite to WAL mode while another one
    // connects can find the database locked
    List<Catalog> catalogs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      catalogs.add(Catalogs.load("verglas", props));
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        Catalog catalog = catalogs.get(t);
        done.add(pool.submit(() -> {
          try {
            for (int i = 1 + first; i < TABLES; i += threads) {
              TestingTables.createUsers(catalog, "db", name(i));
            }
          } finally {
            ((Closeable) catalog).close();
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** table name → metadata location, straight from the catalog's SQLite database. */
  private Map<String, String> metadataLocations() throws Exception {
    Map<String, String> locations = new TreeMap<>();
    try (Connection connection = DriverManager.getConnection(
            world.catalogProperties().get("uri"));
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT table_name, metadata_location FROM iceberg_tables")) {
      while (rows.next()) {
        locations.put(rows.getString(1), rows.getString(2));
      }
    }
    return locations;
  }

  private static long gauge(Map<String, Metric> metrics, String name) {
    Metric metric = metrics.get(name);
    assertThat(metric).as("gauge %s in %s", name, metrics.keySet()).isInstanceOf(Gauge.class);
    return ((Number) ((Gauge<?>) metric).getValue()).longValue();
  }

  private static void awaitModels(Map<Table, TestingWorkload> active) throws InterruptedException {
    for (Map.Entry<Table, TestingWorkload> entry : active.entrySet()) {
      Map<Integer, String> expected = entry.getValue().model();
      MaterializerFixture.await(entry.getKey().name() + " = model", TIMEOUT,
          () -> MaterializerITCase.users(entry.getKey()), expected::equals);
    }
  }

  private static String name(int i) {
    return String.format("t%04d", i);
  }
}
