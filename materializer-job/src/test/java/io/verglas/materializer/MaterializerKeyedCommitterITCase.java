package io.verglas.materializer;

import static io.verglas.materializer.MaterializerITCase.event;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.materializer.MaterializerResilienceITCase.FailingMap;
import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWal;
import io.verglas.table.VerglasTableProperties;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The committer keyed by table, on three task managers: 12 append-only tables, committer
 * parallelism 3, a task failure mid-stream, then the job cancelled mid-flow and restored from
 * its retained checkpoint with committer parallelism 2. Every row written to the WAL is in its
 * table exactly once, every snapshot is one checkpoint's commit with data, each commit has at
 * most one catalog event, and the tables' commits ran on more than one committer subtask.
 *
 * <p>Twelve tables: keyed by random table UUIDs, all of them land on one of the three committer
 * subtasks with probability 3<sup>-11</sup> (the check that more than one subtask committed
 * cannot fail by chance in practice), and each table adds commits and reads to every step.
 */
class MaterializerKeyedCommitterITCase {
  static final int TABLES = 12;
  /** Rows of the first phase (three rounds of 4 a table) before the injected failure. */
  static final long FAIL_AFTER = TABLES * 5L;
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      MaterializerFixture.miniCluster(3, 1, METRICS.addToConfiguration(new Configuration()));

  @RegisterExtension
  final MaterializerFixture world = new MaterializerFixture();

  private final Map<Table, List<String>> written = new TreeMap<>(
      (a, b) -> a.name().compareTo(b.name()));
  private int nextEvent;

  @Test
  void threeCommittersSurviveAFailureAndRestoreAsTwo() throws Exception {
    for (int i = 0; i < TABLES; i++) {
      written.put(TestingTables.createEvents(world.catalog(), "db", "e" + i), new ArrayList<>());
    }
    TestingWal s1 = world.wal("ingest-1");
    TestingWal s2 = world.wal("ingest-2");
    String run = world.dir().toString();
    Path checkpoints = world.checkpoints();
    FailingMap.arm(run, FAIL_AFTER);
    JobClient first = start(world.config(checkpoints).committerParallelism(3).build(), null,
        run);
    try {
      for (int round = 0; round < 3; round++) {
        writeRound(round % 2 == 0 ? s1 : s2, 4);
      }
      awaitAllWritten();
      assertThat(FailingMap.failures(run)).as("injected failures").isEqualTo(1);
      assertThat(first.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
      assertThat(committersWithInput(first)).as("committer subtasks that received deltas")
          .isGreaterThanOrEqualTo(2);

      // Cancelled mid-flow: the last retained checkpoint may hold deltas not yet committed.
      writeRound(s1, 3);
      Table probe = written.keySet().iterator().next();
      int expected = written.get(probe).size();
      MaterializerFixture.await("some of the last round committed", TIMEOUT,
          () -> TestingTables.read(probe).size() == expected);
    } finally {
      MaterializerITCase.stop(first);
      FailingMap.disarm(run);
    }
    writeRound(s2, 3); // while the job is down
    Path checkpoint = MaterializerRestartITCase.latestCheckpoint(checkpoints).orElseThrow();
    JobClient second = start(world.config(checkpoints).committerParallelism(2).build(),
        checkpoint, null);
    try {
      awaitAllWritten();
      MaterializerFixture.await("WAL drained", TIMEOUT, world::uncommittedWalKeys,
          List::isEmpty);
    } finally {
      MaterializerITCase.stop(second);
    }
    for (Table table : written.keySet()) {
      assertExactlyOnce(table);
      assertOneSnapshotPerCheckpointWithData(table);
    }
    assertAtMostOneEventPerCommit();
  }

  /** One segment per table with {@code rows} new events, each with a unique message. */
  private void writeRound(TestingWal wal, int rows) {
    written.forEach((table, messages) -> {
      TestingWal.Segment segment = wal.segment(table);
      List<Map<String, Object>> batch = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        String msg = "m" + nextEvent++;
        batch.add(event(nextEvent, msg));
        messages.add(msg);
      }
      @SuppressWarnings("unchecked")
      Map<String, Object>[] array = batch.toArray(new Map[0]);
      segment.batch(array).put();
    });
  }

  private void awaitAllWritten() throws InterruptedException {
    for (Map.Entry<Table, List<String>> entry : written.entrySet()) {
      int rows = entry.getValue().size();
      MaterializerFixture.await(entry.getKey().name() + " has its " + rows + " rows", TIMEOUT,
          () -> TestingTables.read(entry.getKey()).size(), size -> size >= rows);
    }
  }

  private void assertExactlyOnce(Table table) {
    List<String> messages = new ArrayList<>();
    for (Record record : TestingTables.read(table)) {
      messages.add((String) record.getField("msg"));
    }
    assertThat(messages).as(table.name()).containsExactlyInAnyOrderElementsOf(
        written.get(table));
  }

  /** No checkpoint of a job committed twice to a table, and no snapshot without data. */
  private static void assertOneSnapshotPerCheckpointWithData(Table table) {
    table.refresh();
    Set<String> checkpoints = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      Map<String, String> summary = snapshot.summary();
      String checkpoint = summary.get(VerglasTableProperties.SUMMARY_JOB_ID) + "/"
          + summary.get(VerglasTableProperties.SUMMARY_CHECKPOINT_ID);
      assertThat(checkpoints.add(checkpoint)).as(table.name() + " commits of " + checkpoint)
          .isTrue();
      assertThat(summary.get("added-records")).as(table.name() + " " + checkpoint).isNotNull()
          .isNotEqualTo("0");
    }
  }

  private void assertAtMostOneEventPerCommit() {
    Set<String> ids = new HashSet<>();
    Map<String, Set<Long>> snapshots = new TreeMap<>();
    written.keySet().forEach(table -> {
      Set<Long> ofTable = new HashSet<>();
      table.snapshots().forEach(snapshot -> ofTable.add(snapshot.snapshotId()));
      snapshots.put(table.uuid().toString(), ofTable);
    });
    for (CatalogEvent event : world.events()) {
      assertThat(ids.add(event.id())).as("event " + event.id() + " published once").isTrue();
      assertThat(snapshots.get(event.tableUuid())).as("snapshots of " + event.tableUuid())
          .contains(event.snapshotId());
    }
  }

  /** How many committer subtasks counted input records (deltas), over all attempts. */
  private static long committersWithInput(JobClient job) {
    List<OperatorMetricGroup> committers =
        METRICS.findOperatorMetricGroups(job.getJobID(), "Delta committer");
    assertThat(committers).as("committer metric groups").isNotEmpty();
    return committers.stream()
        .filter(group -> METRICS.getMetricsByGroup(group).get("numRecordsIn")
            instanceof Counter counter && counter.getCount() > 0)
        .map(group -> group.getAllVariables().get("<subtask_index>"))
        .distinct()
        .count();
  }

  /** Starts the job, from {@code checkpoint} if given, with a failure injection if armed. */
  private static JobClient start(MaterializerConfig config, Path checkpoint, String run)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration settings = new Configuration();
    settings.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    settings.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    settings.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
        Duration.ofMillis(200));
    if (checkpoint != null) {
      settings.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.toUri().toString());
    }
    env.configure(settings);
    if (run == null) {
      MaterializerJob.build(env, config);
    } else {
      MaterializerJob.build(env, config, rows -> rows.map(new FailingMap(run))
          .name("Failure injection"));
    }
    return env.executeAsync(MaterializerJob.JOB_NAME);
  }
}
