package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.AwarenessStats;
import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingCacheNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commit warming on the poller path: a plain Iceberg writer (JDBC catalog on SQLite, S3FileIO
 * through a real cache node over a local directory origin) commits and publishes no event; the
 * node, configured with the catalog and no change feed, finds the commit by polling.
 */
class CatalogPollerITCase {
  @TempDir
  Path dir;

  @Test
  void planningAfterACommitFoundByPollingMakesNoOriginRequests() {
    assertThat(originRequestsOfFirstPlanning(true)).isZero();
  }

  @Test
  void planningAfterACommitWithoutPollingGoesToTheOrigin() {
    assertThat(originRequestsOfFirstPlanning(false)).isPositive();
  }

  /** The feed and the poller share the known locations: a commit found first by one is walked once. */
  @Test
  void aCommitFoundByPollingIsNotWalkedAgainWhenItsEventArrives() {
    AtomicReference<Catalog> catalog = new AtomicReference<>();
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), null);
        TestingCacheNode cache = new TestingCacheNode(dir.resolve("origin"), o -> o,
            b -> b.awareness(AwarenessConfig.builder().feedUri(feed.uri()).catalog(catalog::get)
                .pollInterval(Duration.ofMillis(100)).build()));
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Eventually.await("the watcher following the feed", () -> cache.node.stats().awareness().feedConnected());
      Table table = tables.create("db", "events", Map.of());
      catalog.set(tables.freshCatalog(cache.node.endpoint()));
      try {
        tables.append(table, 2, 10);
        awaitPolledAndWarm(cache.node);
        long walks = cache.node.stats().awareness().walksCompleted();
        long polled = cache.node.stats().awareness().commitsPolled();

        feed.publish(TestingTables.commitEvent(table));
        Eventually.await("the event", () -> cache.node.stats().awareness().eventsHandled() == 1);
        awaitPolledAndWarm(cache.node);
        AwarenessStats stats = cache.node.stats().awareness();
        assertThat(stats.walksCompleted()).isEqualTo(walks);
        assertThat(stats.commitsPolled()).isEqualTo(polled);
      } finally {
        TestingTables.closeQuietly(catalog.get());
      }
    }
  }

  /** Commits twice without events, waits for a poll to warm them, then plans with a fresh client. */
  private long originRequestsOfFirstPlanning(boolean polling) {
    AtomicReference<Catalog> catalog = new AtomicReference<>();
    try (TestingCacheNode cache = node(catalog, polling);
        TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
      Table table = tables.create("db", "events", Map.of());
      catalog.set(tables.freshCatalog(cache.node.endpoint())); // the node's own client of the catalog
      try {
        tables.append(table, 3, 100);
        tables.append(table, 3, 100);
        if (polling) {
          awaitPolledAndWarm(cache.node);
          AwarenessStats stats = cache.node.stats().awareness();
          assertThat(stats.commitsPolled()).isPositive();
          assertThat(stats.eventsHandled()).isZero();
          assertThat(stats.bytesWarmed()).isPositive();
        }
        long before = cache.node.stats().originRequests();
        assertThat(tables.planAndReadFooters(cache.node.endpoint(), "db", "events")).isEqualTo(6);
        return cache.node.stats().originRequests() - before;
      } finally {
        TestingTables.closeQuietly(catalog.get());
      }
    }
  }

  /** Waits for two more polls (so one ran wholly after the commits) and an idle warmer. */
  private static void awaitPolledAndWarm(CacheNode node) {
    long polls = node.stats().awareness().polls();
    Eventually.await("a whole poll after the commits and its walks", () -> {
      AwarenessStats a = node.stats().awareness();
      return a.polls() >= polls + 2 && a.walksPending() == 0 && a.walksCompleted() >= 1;
    }, () -> node.stats().toJson());
  }

  private TestingCacheNode node(AtomicReference<Catalog> catalog, boolean polling) {
    return new TestingCacheNode(dir.resolve("origin"), o -> o, b -> {
      if (polling) {
        b.awareness(AwarenessConfig.builder().catalog(catalog::get)
            .pollInterval(Duration.ofMillis(100)).build());
      }
    });
  }
}
