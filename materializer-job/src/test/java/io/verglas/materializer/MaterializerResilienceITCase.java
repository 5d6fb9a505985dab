package io.verglas.materializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.commit.TableCommitter;
import io.verglas.materializer.source.WalRow;
import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingCompactor;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWal;
import io.verglas.materializer.testing.TestingWorkload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole job on a MiniCluster under trouble: a task that fails mid-stream (restart from the
 * last checkpoint), and another writer compacting the table while upserts flow. Afterwards every
 * acknowledged row is in the table exactly once, per key the last version.
 */
class MaterializerResilienceITCase {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  /** The longest a compaction waits for another commit before it compacts again. */
  static final Duration COMPACTION_PAUSE = Duration.ofSeconds(5);

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      MaterializerFixture.miniCluster(1, 2);

  @RegisterExtension
  final MaterializerFixture world = new MaterializerFixture();

  @Test
  void aTaskFailingMidStreamRestartsFromTheLastCheckpointAndLosesNothing() throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users");
    TestingWal s1 = world.wal("ingest-1");
    TestingWal s2 = world.wal("ingest-2");
    TestingWorkload workload = new TestingWorkload(11, 25);
    String run = world.dir().toString();
    FailingMap.arm(run, 120, 420);
    MaterializerConfig config = world.config(world.checkpoints()).build();

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration restarts = new Configuration();
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    env.configure(restarts);
    MaterializerJob.build(env, config,
        rows -> rows.map(new FailingMap(run)).name("Failure injection"));
    JobClient job = env.executeAsync(MaterializerJob.JOB_NAME);
    try {
      for (int i = 0; i < 36; i++) {
        workload.segment(i % 2 == 0 ? s1 : s2, users, 15);
        Thread.sleep(60);
      }
      awaitModel(users, workload.model());
      MaterializerFixture.await("WAL drained", TIMEOUT, world::walKeys, List::isEmpty);
      assertThat(FailingMap.failures(run)).as("injected failures").isEqualTo(2);
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    } finally {
      MaterializerITCase.stop(job);
      FailingMap.disarm(run);
    }
    assertThat(MaterializerITCase.users(users)).isEqualTo(workload.model());
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void concurrentCompactionsNeitherLoseNorResurrectRows(int formatVersion) throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users", formatVersion);
    TestingWal s1 = world.wal("ingest-1");
    TestingWal s2 = world.wal("ingest-2");
    TestingWorkload workload = new TestingWorkload(23 + formatVersion, 30);
    TestingCompactor compactor = new TestingCompactor(5);
    Table compacted = world.catalog().loadTable(
        org.apache.iceberg.catalog.TableIdentifier.of("db", "users"));
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicReference<Throwable> compactionError = new AtomicReference<>();
    Thread compaction = new Thread(() -> {
      while (running.get()) {
        try {
          boolean whole = ThreadLocalRandom.current().nextBoolean();
          if (whole ? compactor.compact(compacted) : compactor.compactOnePartition(compacted)) {
            // A compactor that rewrites the table faster than a commit attempt takes would starve
            // the materializer (optimistic concurrency has no fairness); real ones do not: this
            // one waits until another commit landed on top of its own (bounded, so a table
            // without traffic is still compacted), however slow the machine.
            awaitCommitAfter(compacted, COMPACTION_PAUSE);
          }
        } catch (InterruptedException e) {
          return;
        } catch (Throwable t) {
          compactionError.compareAndSet(null, t);
          return;
        }
      }
    }, "compaction");

    JobClient job = MaterializerITCase.start(world.config(world.checkpoints()).build());
    try {
      compaction.start();
      // Bursts of upserts and deletes; the compactor runs all the time, and each round waits
      // until one more compaction got through, so rewrites interleave with the flow (a busy
      // table refuses most whole-table rewrites: they read files that gain deletes meanwhile).
      for (int round = 0; round < 6; round++) {
        int before = compactor.committed();
        for (int i = 0; i < 5; i++) {
          workload.segment(i % 2 == 0 ? s1 : s2, users, 12);
          Thread.sleep(60);
        }
        MaterializerFixture.await("a compaction after round " + round, TIMEOUT,
            () -> compactor.committed() > before || compactionError.get() != null);
      }
      awaitModel(users, workload.model());
      running.set(false);
      compaction.join();
      assertThat(compactionError.get()).as("compaction thread error").isNull();
      assertThat(compactor.committed()).as(compactor.toString()).isGreaterThanOrEqualTo(6);

      // Every key's index entry now points at a file the last compaction replaced.
      assertThat(compactor.compact(compacted)).isTrue();
      workload.touchAll(s1, users);
      awaitModel(users, workload.model());
      // Drained: every segment committed (a DELETE that failed under load may leave a committed
      // segment behind until a restart reads it again: deletion is best effort by design).
      MaterializerFixture.await("WAL drained", TIMEOUT, world::uncommittedWalKeys, List::isEmpty);
    } finally {
      running.set(false);
      compaction.join();
      MaterializerITCase.stop(job);
    }
    assertThat(MaterializerITCase.users(users)).isEqualTo(workload.model());
    long relocated = TestingTables.summaryTotal(users, snapshot -> true,
        TableCommitter.SUMMARY_RELOCATED_ROWS);
    assertThat(relocated).as("rows re-resolved by key").isGreaterThan(0);
    // Version 2 tables get Parquet position-delete files (readable by engines without V3), and
    // version 3 tables deletion vectors; both file-scoped.
    FileFormat deletes = formatVersion == 2 ? FileFormat.PARQUET : FileFormat.PUFFIN;
    assertThat(MaterializerITCase.addedDeletes(users)).isNotEmpty().allSatisfy(file -> {
      assertThat(file.format()).isEqualTo(deletes);
      assertThat(file.referencedDataFile()).isNotNull();
    });
  }

  /** Waits until the table's current snapshot is not the one it has now, or {@code max}. */
  private static void awaitCommitAfter(Table table, Duration max) throws InterruptedException {
    Thread.sleep(400);
    long mine = table.currentSnapshot().snapshotId();
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline) {
      table.refresh();
      if (table.currentSnapshot().snapshotId() != mine) {
        return;
      }
      Thread.sleep(100);
    }
  }

  static void awaitModel(Table users, Map<Integer, String> model) throws InterruptedException {
    MaterializerFixture.await("the table equal to the model", TIMEOUT,
        () -> MaterializerITCase.users(users), model::equals);
  }

  /** Passes rows through; throws once when the run's row count reaches each armed threshold. */
  static final class FailingMap implements MapFunction<WalRow, WalRow> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Arm> ARMS = new ConcurrentHashMap<>();

    private final String run;

    FailingMap(String run) {
      this.run = run;
    }

    static void arm(String run, long... thresholds) {
      ARMS.put(run, new Arm(thresholds));
    }

    static void disarm(String run) {
      ARMS.remove(run);
    }

    static int failures(String run) {
      return ARMS.get(run).failures.get();
    }

    @Override
    public WalRow map(WalRow row) {
      Arm arm = ARMS.get(run);
      if (arm != null) {
        long seen = arm.rows.incrementAndGet();
        for (int i = 0; i < arm.thresholds.length; i++) {
          if (seen >= arm.thresholds[i] && arm.fired[i].compareAndSet(false, true)) {
            arm.failures.incrementAndGet();
            throw new IllegalStateException("Injected failure " + (i + 1) + " after " + seen
                + " rows");
          }
        }
      }
      return row;
    }

    private static final class Arm {
      final long[] thresholds;
      final AtomicBoolean[] fired;
      final AtomicLong rows = new AtomicLong();
      final java.util.concurrent.atomic.AtomicInteger failures =
          new java.util.concurrent.atomic.AtomicInteger();

      Arm(long[] thresholds) {
        this.thresholds = thresholds;
        this.fired = new AtomicBoolean[thresholds.length];
        for (int i = 0; i < thresholds.length; i++) {
          fired[i] = new AtomicBoolean();
        }
      }
    }
  }
}
