package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.CacheNode;
import io.verglas.cache.CacheStats;
import io.verglas.cache.TestingCacheNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The headline of compaction heat transfer, hermetic: a real node (1 MiB blocks) following a
 * real change feed, a partitioned Iceberg table written through it, a three-query working set
 * warmed on it, then Iceberg's own rewrite ({@code RewriteFiles}, a replace commit) and its
 * event. Once the walk (and prefetch) of the replace has finished, the first query wave is run
 * again with fresh clients and its block reads are counted: with prefetch at least 90% are hits;
 * with prefetch off, or without awareness, at most 5%.
 *
 * <p>Across a restart: the working set is warmed on one node, which is then closed (or its
 * state directory copied while it runs, as a crash would leave it), and a new node on the same
 * origin and state directory sees the compaction. It has served no query, so only the heat it
 * restored from the state directory can make its first wave hit; with the heat file gone, it
 * misses.
 */
class CompactionPrefetchITCase {
  private static final int PARTITIONS = 3;
  private static final int FILES_PER_PARTITION = 2;
  /** 11,000 values of 100 bytes: each column chunk spans two or three 1 MiB blocks. */
  private static final TestingWorkingSet DATA = new TestingWorkingSet(11_000, 100);

  @TempDir
  Path dir;

  @Test
  void theFirstQueryWaveAfterACompactionHitsPrefetchedBlocks() {
    Wave wave = firstWaveAfterCompaction(Mode.PREFETCH);
    assertThat(wave.hitRate()).as("hit rate with prefetch (%s)", wave).isGreaterThanOrEqualTo(0.90);
    assertThat(wave.prefetchBytes).as("only hot column chunks are prefetched (%s)", wave)
        .isPositive().isLessThan(wave.replacementBytes * 3 / 4);
  }

  @Test
  void withoutPrefetchTheFirstQueryWaveAfterACompactionMisses() {
    Wave wave = firstWaveAfterCompaction(Mode.NO_PREFETCH);
    assertThat(wave.hitRate()).as("hit rate without prefetch (%s)", wave).isLessThanOrEqualTo(0.05);
    assertThat(wave.prefetchBytes).isZero();
  }

  @Test
  void aFormatBlindNodeMissesTheFirstQueryWaveAfterACompaction() {
    Wave wave = firstWaveAfterCompaction(Mode.BLIND);
    assertThat(wave.hitRate()).as("hit rate without awareness (%s)", wave).isLessThanOrEqualTo(0.05);
  }

  @Test
  void theFirstCompactionAfterAGracefulRestartIsPrefetchedFromSavedHeat() throws IOException {
    Wave wave = firstWaveAfterRestartAndCompaction(Restart.GRACEFUL);
    assertThat(wave.hitRate()).as("hit rate after a restart (%s)", wave).isGreaterThanOrEqualTo(0.90);
    assertThat(wave.prefetchBytes).isPositive().isLessThan(wave.replacementBytes * 3 / 4);
  }

  @Test
  void theFirstCompactionAfterACrashIsPrefetchedFromThePeriodicallySavedHeat() throws IOException {
    Wave wave = firstWaveAfterRestartAndCompaction(Restart.CRASH);
    assertThat(wave.hitRate()).as("hit rate after a crash (%s)", wave).isGreaterThanOrEqualTo(0.90);
    assertThat(wave.prefetchBytes).isPositive();
  }

  @Test
  void withoutSavedHeatTheFirstCompactionAfterARestartMisses() throws IOException {
    Wave wave = firstWaveAfterRestartAndCompaction(Restart.HEAT_FILE_LOST);
    assertThat(wave.hitRate()).as("hit rate after a restart without heat (%s)", wave).isLessThanOrEqualTo(0.05);
    assertThat(wave.prefetchBytes).isZero();
  }

  private enum Mode { PREFETCH, NO_PREFETCH, BLIND }

  /** How the first node ends and what the second finds in its state directory. */
  private enum Restart { GRACEFUL, CRASH, HEAT_FILE_LOST }

  private record Wave(long hits, long misses, long prefetchBytes, long replacementBytes,
      double oldSnapshotHitRate) {
    double hitRate() {
      return hits + misses == 0 ? 0 : (double) hits / (hits + misses);
    }
  }

  private Wave firstWaveAfterCompaction(Mode mode) {
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null);
        TestingCacheNode cache = node(feed, mode);
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = TestingWorkingSet.create(tables.catalog(), "db", "sales");
      DATA.append(table, PARTITIONS, FILES_PER_PARTITION);
      publishAndAwait(feed, cache.node, table, mode, 1);
      for (int round = 0; round < 2; round++) {
        runWave(tables, cache.node.endpoint(), null);
      }
      long beforeCompaction = table.currentSnapshot().snapshotId();
      if (mode != Mode.BLIND) {
        assertHot(cache.node);
      }

      DATA.compact(table, PARTITIONS, FILES_PER_PARTITION);
      assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
      long replacementBytes = table.currentSnapshot().addedDataFiles(table.io()).iterator().next().fileSizeInBytes()
          * PARTITIONS;
      publishAndAwait(feed, cache.node, table, mode, 2);

      CacheStats before = cache.node.stats();
      if (mode != Mode.BLIND) {
        assertThat(before.awareness().replaceCommits()).as("the compaction seen as a replace").isEqualTo(1);
      }
      runWave(tables, cache.node.endpoint(), null);
      CacheStats after = cache.node.stats();
      CacheStats beforeOld = after;
      runWave(tables, cache.node.endpoint(), beforeCompaction);
      CacheStats afterOld = cache.node.stats();
      long oldHits = afterOld.hits() - beforeOld.hits();
      long oldMisses = afterOld.misses() - beforeOld.misses();
      assertThat(oldMisses).as("the old files stay cached and servable").isZero();
      Wave wave = new Wave(after.hits() - before.hits(), after.misses() - before.misses(),
          after.awareness().prefetchBytes(), replacementBytes,
          oldHits + oldMisses == 0 ? 0 : (double) oldHits / (oldHits + oldMisses));
      System.out.println("First wave after compaction, " + mode + ": hit rate " + wave.hitRate() + ", " + wave);
      return wave;
    }
  }

  private Wave firstWaveAfterRestartAndCompaction(Restart restart) throws IOException {
    Path state = dir.resolve("state");
    Path restartState = restart == Restart.CRASH ? dir.resolve("state-at-crash") : state;
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null)) {
      try (TestingCacheNode first = node(feed, state);
          TestingTables tables = new TestingTables(dir.resolve("catalog.db"), first.node.endpoint())) {
        Table table = TestingWorkingSet.create(tables.catalog(), "db", "sales");
        DATA.append(table, PARTITIONS, FILES_PER_PARTITION);
        publishAndAwait(feed, first.node, table, Mode.PREFETCH, 1);
        for (int round = 0; round < 2; round++) {
          runWave(tables, first.node.endpoint(), null);
        }
        assertHot(first.node);
        if (restart == Restart.CRASH) {
          copyOnceHeatIsSaved(state, restartState);
        }
      }
      if (restart == Restart.HEAT_FILE_LOST) {
        Files.delete(state.resolve(HeatStore.FILE_NAME));
      }
      try (TestingCacheNode second = node(feed, restartState);
          TestingTables tables = new TestingTables(dir.resolve("catalog.db"), second.node.endpoint())) {
        Eventually.await("the startup walk", () -> {
          var a = second.node.stats().awareness();
          return a.walksCompleted() >= 1 && a.walksPending() == 0;
        }, () -> second.node.stats().toJson());
        long restored = second.node.stats().awareness().heatEntriesRestored();
        if (restart == Restart.HEAT_FILE_LOST) {
          assertThat(restored).isZero();
        } else {
          assertThat(restored).as("heat entries restored").isPositive();
          assertThat(get(second.node.adminEndpoint().resolve("/metrics")))
              .contains("verglas_cache_heat_entries_restored " + restored);
        }
        Table table = tables.catalog().loadTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "sales"));
        DATA.compact(table, PARTITIONS, FILES_PER_PARTITION);
        long replacementBytes = table.currentSnapshot().addedDataFiles(table.io()).iterator().next()
            .fileSizeInBytes() * PARTITIONS;
        feed.publish(TestingTables.commitEvent(table));
        Eventually.await("the compaction's walk", () -> {
          var a = second.node.stats().awareness();
          return a.eventsHandled() >= 1 && a.walksPending() == 0 && a.walksCompleted() >= 2;
        }, () -> second.node.stats().toJson());
        assertThat(second.node.stats().awareness().replaceCommits()).isEqualTo(1);
        CacheStats before = second.node.stats();
        runWave(tables, second.node.endpoint(), null);
        CacheStats after = second.node.stats();
        Wave wave = new Wave(after.hits() - before.hits(), after.misses() - before.misses(),
            after.awareness().prefetchBytes(), replacementBytes, 0);
        System.out.println("First wave after a restart (" + restart + ") and a compaction: " + wave);
        return wave;
      }
    }
  }

  /**
   * Copies the state directory as a crash would leave it, once the periodic save holds the
   * working set's heat (the running node's files are each replaced atomically).
   */
  private static void copyOnceHeatIsSaved(Path state, Path copy) throws IOException {
    Path heatFile = state.resolve(HeatStore.FILE_NAME);
    Eventually.await("the heat saved", () -> {
      try {
        return Files.exists(heatFile) && HeatFile.decode(Files.readAllBytes(heatFile)).entries().stream()
            .anyMatch(h -> h.at().table().equals("db.sales") && h.at().column().equals("c") && h.heat() >= 1);
      } catch (IOException e) {
        return false;
      }
    });
    Files.createDirectories(copy);
    for (String name : new String[] {WatcherStateStore.FILE_NAME, HeatStore.FILE_NAME}) {
      Files.copy(state.resolve(name), copy.resolve(name));
    }
  }

  /** The ledger knows the working set's coordinates, hottest first, over the admin endpoint. */
  private static void assertHot(CacheNode node) {
    String json = get(node.adminEndpoint().resolve("/heat?table=db.sales"));
    assertThat(json).contains("\"table\":\"db.sales\"").contains("\"partition\":\"part=1\"")
        .contains("\"column\":\"a\"").contains("\"column\":\"c\"").doesNotContain("\"column\":\"b\"");
  }

  private static void runWave(TestingTables tables, URI endpoint, Long snapshotId) {
    Catalog client = tables.freshCatalog(endpoint);
    try {
      for (TestingWorkingSet.Query query : TestingWorkingSet.WORKING_SET) {
        assertThat(TestingWorkingSet.run(client, "db", "sales", query, snapshotId)).isPositive();
      }
    } finally {
      TestingTables.closeQuietly(client);
    }
  }

  private static void publishAndAwait(TestingFeedServer feed, CacheNode node, Table table, Mode mode,
      long events) {
    feed.publish(TestingTables.commitEvent(table));
    if (mode != Mode.BLIND) {
      Eventually.await(events + " walks", () -> {
        var a = node.stats().awareness();
        return a.eventsHandled() >= events && a.walksPending() == 0 && a.walksCompleted() >= events;
      }, () -> node.stats().toJson());
    }
  }

  /** A prefetching node keeping its watcher position and heat in {@code state}, saving heat every 200 ms. */
  private TestingCacheNode node(TestingFeedServer feed, Path state) {
    TestingCacheNode cache = new TestingCacheNode(dir.resolve("origin"), o -> o, b -> b
        .blockSize(CacheNode.MIB).dramCapacityBytes(512L * CacheNode.MIB).adminPort(0)
        .awareness(AwarenessConfig.builder().feedUri(feed.uri())
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .stateDirectory(state)
            .heatSaveInterval(Duration.ofMillis(200))
            .build()));
    Eventually.await("the watcher following the feed", () -> cache.node.stats().awareness().feedConnected());
    return cache;
  }

  private TestingCacheNode node(TestingFeedServer feed, Mode mode) {
    TestingCacheNode cache = new TestingCacheNode(dir.resolve("origin"), o -> o, b -> {
      b.blockSize(CacheNode.MIB).dramCapacityBytes(512L * CacheNode.MIB).adminPort(0);
      if (mode != Mode.BLIND) {
        b.awareness(AwarenessConfig.builder().feedUri(feed.uri())
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .prefetch(mode == Mode.PREFETCH)
            .build());
      }
    });
    if (mode != Mode.BLIND) {
      Eventually.await("the watcher following the feed", () -> cache.node.stats().awareness().feedConnected());
    }
    return cache;
  }

  private static String get(URI uri) {
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return response.body();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
