package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.AwarenessStats;
import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.TestingCountingOrigin;
import io.verglas.cache.origin.Origin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commit warming end to end: a real Iceberg table (JDBC catalog on SQLite, S3FileIO through a
 * real cache node over a local directory origin), a real change feed receiving an event after
 * each commit, and a fresh Iceberg client planning a scan through the node.
 */
class CommitWarmingITCase {
  @TempDir
  Path dir;

  @Test
  void planningAfterAWarmedCommitMakesNoOriginRequests() {
    assertThat(originRequestsOfFirstPlanning(true)).isZero();
  }

  @Test
  void planningAfterACommitWithoutAwarenessGoesToTheOrigin() {
    assertThat(originRequestsOfFirstPlanning(false)).isPositive();
  }

  /** Commits twice (an event after each), waits for warming, then plans with a fresh client. */
  private long originRequestsOfFirstPlanning(boolean aware) {
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null);
        TestingCacheNode cache = node(feed, aware, b -> { }, o -> o);
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = tables.create("db", "events", Map.of());
      for (int commit = 1; commit <= 2; commit++) {
        tables.append(table, 3, 100);
        feed.publish(TestingTables.commitEvent(table));
      }
      if (aware) {
        awaitWarm(cache.node, 2);
        assertThat(cache.node.stats().awareness().bytesWarmed()).isPositive();
      }
      long before = cache.node.stats().originRequests();
      assertThat(tables.planAndReadFooters(cache.node.endpoint(), "db", "events")).isEqualTo(6);
      return cache.node.stats().originRequests() - before;
    }
  }

  @Test
  void aTableOverItsBudgetIsNoLongerWarmedAndSaysSo() {
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null);
        TestingCacheNode cache = node(feed, true, b -> { }, o -> o, a -> a.tableBudgetBytes(1024));
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = tables.create("db", "big", Map.of());
      tables.append(table, 2, 100);
      feed.publish(TestingTables.commitEvent(table));
      Eventually.await("the table over budget", () -> cache.node.stats().awareness()
          .tablesOverBudget().contains("db.big"), () -> cache.node.stats().toJson());
      long walkedBefore = cache.node.stats().awareness().bytesWalked();

      tables.append(table, 2, 100);
      feed.publish(TestingTables.commitEvent(table));
      Eventually.await("the second event", () -> cache.node.stats().awareness().eventsHandled() == 2);
      AwarenessStats stats = cache.node.stats().awareness();
      assertThat(stats.walksSkippedOverBudget()).isEqualTo(1);
      assertThat(stats.walksCompleted()).isZero();
      assertThat(stats.bytesWalked()).isEqualTo(walkedBefore).isLessThanOrEqualTo(1024);
      assertThat(cache.node.stats().toJson()).contains("\"tablesOverBudget\":[\"db.big\"]");

      long before = cache.node.stats().originRequests();
      tables.planAndReadFooters(cache.node.endpoint(), "db", "big");
      assertThat(cache.node.stats().originRequests() - before).isPositive();
    }
  }

  /**
   * A table over its budget whose metadata shrinks back under it (every data file deleted: no
   * footers left to read) is walked again once its retry wait has passed, fits, and is warmed
   * again. The budget lies halfway between the two walks' sizes, measured first on a node
   * without a budget to speak of.
   */
  @Test
  void aTableBackUnderItsBudgetIsReadmittedOnItsFirstCommitAfterTheRetryWait() throws InterruptedException {
    long[] walks = walksOfABigTableThenItsDeletion("calibration");
    assertThat(walks[0]).as("30 footers more than the deletion's walk").isGreaterThan(walks[1] + 4096);
    long budget = (walks[0] + walks[1]) / 2;
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null);
        TestingCacheNode cache = node(feed, true, b -> { }, o -> o,
            a -> a.tableBudgetBytes(budget).tableBudgetRetry(Duration.ofMillis(300)));
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = tables.create("db", "big", Map.of());
      tables.append(table, 30, 20);
      feed.publish(TestingTables.commitEvent(table));
      Eventually.await("the table over budget", () -> cache.node.stats().awareness()
          .tablesOverBudget().contains("db.big"), () -> cache.node.stats().toJson());

      table.newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();
      Thread.sleep(300);   // the retry is due
      feed.publish(TestingTables.commitEvent(table));
      Eventually.await("the table re-admitted", () -> cache.node.stats().awareness().tablesReadmitted() == 1,
          () -> cache.node.stats().toJson());
      AwarenessStats stats = cache.node.stats().awareness();
      assertThat(stats.tablesOverBudget()).isEmpty();
      assertThat(stats.walksCompleted()).isEqualTo(1);
      assertThat(stats.walksSkippedOverBudget()).isZero();
    }
  }

  /** The bytes of a walk of a 30-file table's first commit and of the commit deleting them all. */
  private long[] walksOfABigTableThenItsDeletion(String name) {
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed-" + name), null);
        TestingCacheNode cache = node(feed, true, b -> { }, o -> o);
        TestingTables tables = new TestingTables(dir.resolve(name + ".db"), cache.node.endpoint())) {
      Table table = tables.create("db", "big", Map.of());
      tables.append(table, 30, 20);
      feed.publish(TestingTables.commitEvent(table));
      awaitWarm(cache.node, 1);
      long first = cache.node.stats().awareness().bytesWalked();
      table.newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();
      feed.publish(TestingTables.commitEvent(table));
      Eventually.await("the second walk", () -> cache.node.stats().awareness().walksCompleted() == 2);
      return new long[] {first, cache.node.stats().awareness().bytesWalked() - first};
    }
  }

  /**
   * Data files outside {@code data/} are not immutable by path; once walked metadata names them
   * they are never revalidated, whatever the TTL.
   */
  @Test
  void filesNamedByMetadataAreNeverRevalidated() {
    assertThat(revalidationsOfDataFilesOutsideDataDirectory(true, false)).isZero();
    assertThat(revalidationsOfDataFilesOutsideDataDirectory(false, false)).isPositive();
  }

  /** A file a client resolved as mutable before the walk named it stops being revalidated. */
  @Test
  void aFileReadBeforeItsMetadataWasWalkedStopsBeingRevalidated() {
    assertThat(revalidationsOfDataFilesOutsideDataDirectory(true, true)).isZero();
  }

  /**
   * Plans and reads footers of a table whose data files lie outside {@code data/}, moves the
   * clock past the TTL, and returns the revalidations a second planning causes; with
   * {@code readEarly} a client reads the files before the commit event is published (and once
   * more after the walk, which may revalidate once).
   */
  private long revalidationsOfDataFilesOutsideDataDirectory(boolean aware, boolean readEarly) {
    Path run = dir.resolve((aware ? "aware" : "blind") + (readEarly ? "-early" : ""));
    try (TestingFeedServer feed = new TestingFeedServer(run.resolve("feed"), null);
        TestingCacheNode cache = node(feed, aware, b -> { }, o -> o);
        TestingTables tables = new TestingTables(run.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = tables.create("db", "custom", Map.of("write.data.path",
          "s3://" + TestingCacheNode.BUCKET + "/db/custom/files"));
      tables.append(table, 2, 10);
      try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
        assertThat(planned).allSatisfy(task -> assertThat(task.file().location()).contains("/db/custom/files/"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (readEarly) {
        tables.planAndReadFooters(cache.node.endpoint(), "db", "custom");
        cache.clock.shift(Duration.ofMinutes(5));
      }
      feed.publish(TestingTables.commitEvent(table));
      if (aware) {
        awaitWarm(cache.node, 1);
      }
      tables.planAndReadFooters(cache.node.endpoint(), "db", "custom");
      cache.clock.shift(Duration.ofMinutes(5)); // far past the metadata TTL
      long before = cache.node.stats().revalidations();
      tables.planAndReadFooters(cache.node.endpoint(), "db", "custom");
      return cache.node.stats().revalidations() - before;
    }
  }

  @Test
  void warmingKeepsToItsConcurrency() {
    TestingCountingOrigin[] counting = new TestingCountingOrigin[1];
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null);
        TestingCacheNode cache = node(feed, true, b -> { }, o -> counting[0] = new TestingCountingOrigin(o),
            a -> a.warmConcurrency(2));
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = tables.create("db", "wide", Map.of());
      tables.append(table, 8, 10);
      counting[0].delayRangeReads(30);
      counting[0].maxConcurrentRangeReads.set(0);
      feed.publish(TestingTables.commitEvent(table));
      awaitWarm(cache.node, 1);
      assertThat(counting[0].maxConcurrentRangeReads.get()).isBetween(1, 2);
    }
  }

  static void awaitWarm(CacheNode node, long events) {
    Eventually.await(events + " events handled and warmed", () -> {
      AwarenessStats a = node.stats().awareness();
      return a.eventsHandled() >= events && a.walksPending() == 0 && a.walksCompleted() >= 1;
    }, () -> node.stats().toJson());
  }

  private TestingCacheNode node(TestingFeedServer feed, boolean aware, Consumer<CacheNode.Builder> tune,
      Function<Origin, Origin> wrap) {
    return node(feed, aware, tune, wrap, a -> { });
  }

  /** A node (following the feed if {@code aware}, once it follows it). */
  private TestingCacheNode node(TestingFeedServer feed, boolean aware, Consumer<CacheNode.Builder> tune,
      Function<Origin, Origin> wrap, Consumer<AwarenessConfig.Builder> awareness) {
    TestingCacheNode cache = new TestingCacheNode(dir.resolve("origin-" + System.nanoTime()), wrap, b -> {
      if (aware) {
        AwarenessConfig.Builder config = AwarenessConfig.builder().feedUri(feed.uri())
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500));
        awareness.accept(config);
        b.awareness(config.build());
      }
      tune.accept(b);
    });
    if (aware) {
      Eventually.await("the watcher following the feed", () -> cache.node.stats().awareness().feedConnected());
    }
    return cache;
  }
}
