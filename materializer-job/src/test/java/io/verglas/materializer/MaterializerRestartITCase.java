package io.verglas.materializer;

import static io.verglas.materializer.MaterializerITCase.awaitUsers;
import static io.verglas.materializer.MaterializerITCase.event;
import static io.verglas.materializer.MaterializerITCase.user;
import static io.verglas.materializer.testing.TestingWal.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.testing.MaterializerFixture;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Restarts: from a retained checkpoint, and from nothing. Neither may lose or duplicate rows. */
class MaterializerRestartITCase {
  static final Duration TIMEOUT = MaterializerITCase.TIMEOUT;

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      MaterializerFixture.miniCluster(1, 2);

  @RegisterExtension
  final MaterializerFixture world = new MaterializerFixture();

  /**
   * Also across a change of parallelism, between the topology of a single writer (chained to the
   * source, no shuffle) and that of several (keyed shuffle): the key index is the same state.
   */
  @ParameterizedTest(name = "writers {0} -> {1}")
  @CsvSource({"2, 2", "1, 2", "2, 1"})
  void restoresFromTheRetainedCheckpointWithItsKeyIndex(int before, int after) throws Exception {
    Table users = TestingTables.createUsers(world.catalog(), "db", "users");
    Table events = TestingTables.createEvents(world.catalog(), "db", "events");
    TestingWal wal = world.wal("ingest-1");
    Path checkpoints = world.checkpoints();
    MaterializerConfig config = world.config(checkpoints, before).build();

    wal.segment(users).batch(user(1, "a", "eu", 1), user(2, "b", "us", 1), user(3, "c", "eu", 1)).put();
    wal.segment(events).batch(event(1, "x"), event(2, "y")).put();
    JobClient first = MaterializerITCase.start(config);
    awaitUsers(users, Map.of(1, "a/eu/1", 2, "b/us/1", 3, "c/eu/1"));
    MaterializerFixture.await("2 events", TIMEOUT, () -> TestingTables.read(events).size(),
        size -> size == 2);
    MaterializerFixture.await("WAL drained", TIMEOUT, world::walKeys, List::isEmpty);
    Path checkpoint = MaterializerFixture.await("a completed checkpoint after the commits",
        TIMEOUT, () -> latestCheckpoint(checkpoints), Optional::isPresent).get();
    MaterializerITCase.stop(first);
    checkpoint = latestCheckpoint(checkpoints).orElse(checkpoint);

    // While the job is down: updates of keys committed by the first run, a delete, appends.
    wal.segment(users)
        .batch(user(1, "a2", "eu", 2), row("id", 2, "_op", "D"), user(4, "d", "us", 1))
        .put();
    wal.segment(events).batch(event(3, "z")).put();

    JobClient second = startFrom(world.config(checkpoints, after).build(), checkpoint);
    try {
      awaitUsers(users, Map.of(1, "a2/eu/2", 3, "c/eu/1", 4, "d/us/1"));
      MaterializerFixture.await("3 events", TIMEOUT, () -> TestingTables.read(events).size(),
          size -> size == 3);
      MaterializerFixture.await("WAL drained", TIMEOUT, world::walKeys, List::isEmpty);
    } finally {
      MaterializerITCase.stop(second);
    }
    // Updates found their previous versions through the restored key index: no duplicates, and
    // the old versions of keys 1 and 2 were deleted by position (a DV, or their file removed).
    assertThat(MaterializerITCase.users(users)).hasSize(3);
    assertThat(MaterializerITCase.rowsDeletedByPosition(users)).isGreaterThanOrEqualTo(2);
    assertThat(TestingTables.read(events).stream().map(r -> r.getField("msg"))
        .collect(Collectors.toList())).containsExactlyInAnyOrder("x", "y", "z");
  }

  @Test
  void restartWithoutCheckpointSkipsWhatTheSummaryRecordsAsCommitted() throws Exception {
    Table events = TestingTables.createEvents(world.catalog(), "db", "events");
    TestingWal wal = world.wal("ingest-1");
    MaterializerConfig config = world.config(world.checkpoints()).build();

    TestingWal.Segment committed = wal.segment(events).batch(event(1, "x"), event(2, "y"));
    String committedKey = committed.put();
    JobClient first = MaterializerITCase.start(config);
    try {
      MaterializerFixture.await("2 events", TIMEOUT, () -> TestingTables.read(events).size(),
          size -> size == 2);
      MaterializerFixture.await("WAL drained", TIMEOUT, world::walKeys, List::isEmpty);
    } finally {
      MaterializerITCase.stop(first);
    }

    // A crash between commit and cleanup leaves a committed segment behind; a new job without
    // any checkpoint must recognise it from the snapshot summary, not append it again.
    world.put(committedKey, committed.bytes());
    wal.segment(events).batch(event(3, "z")).put();
    JobClient second = MaterializerITCase.start(config);
    try {
      MaterializerFixture.await("3 events", TIMEOUT, () -> TestingTables.read(events).size(),
          size -> size >= 3);
      MaterializerFixture.await("WAL drained", TIMEOUT, world::walKeys, List::isEmpty);
    } finally {
      MaterializerITCase.stop(second);
    }
    assertThat(TestingTables.read(events).stream().map(r -> r.getField("msg"))
        .collect(Collectors.toList())).containsExactlyInAnyOrder("x", "y", "z");
  }

  static JobClient startFrom(MaterializerConfig config, Path checkpoint) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    Configuration restore = new Configuration();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.toUri().toString());
    env.configure(restore);
    MaterializerJob.build(env, config);
    return env.executeAsync(MaterializerJob.JOB_NAME);
  }

  /** The newest {@code chk-N} directory with metadata under any job's checkpoint directory. */
  static Optional<Path> latestCheckpoint(Path root) {
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    try (Stream<Path> paths = Files.walk(root, 2)) {
      return paths
          .filter(p -> p.getFileName().toString().startsWith("chk-"))
          .filter(p -> Files.exists(p.resolve("_metadata")))
          .max(Comparator.comparingLong(p ->
              Long.parseLong(p.getFileName().toString().substring(4))));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
