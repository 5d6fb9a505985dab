package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.AwarenessStats;
import io.verglas.cache.TestingCacheNode;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEventParser;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog watcher against real feed servers on 127.0.0.1: resuming after a disconnect and
 * after a node restart, gaps, the feed's end at first start, unknown event types and unreadable
 * lines, and the bearer token.
 */
class FeedFollowingITCase {
  private static final String TOKEN = "feed-secret";

  @TempDir
  Path dir;

  private final List<Long> handled = Collections.synchronizedList(new ArrayList<>());

  @Test
  void resumesAfterADisconnectAndAfterARestartHandlingEveryEventOnce() {
    Path origin = dir.resolve("origin");
    Path state = dir.resolve("state");
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), TOKEN)) {
      TestingCacheNode first = node(origin, feed.uri(), state, 0);
      int port = first.node.port();
      try (TestingTables tables = new TestingTables(dir.resolve("catalog.db"), first.node.endpoint())) {
        Table table = tables.create("db", "events", Map.of());
        commit(tables, table, feed);
        awaitHandled(1);

        feed.stop();
        commit(tables, table, feed); // published while the feed's server is down
        Eventually.await("a failed reconnection", () -> first.node.stats().awareness().reconnects() >= 2);
        feed.restart();
        awaitHandled(2);

        tables.append(table, 2, 10);
        first.close();
        feed.publish(TestingTables.commitEvent(table)); // published while the node is down
        try (TestingCacheNode second = node(origin, feed.uri(), state, port)) {
          awaitHandled(3);
          commit(tables, table, feed);
          awaitHandled(4);
          CommitWarmingITCase.awaitWarm(second.node, 2);
          AwarenessStats stats = second.node.stats().awareness();
          assertThat(stats.lastSequence()).isEqualTo(4);
          assertThat(stats.eventsHandled()).isEqualTo(2);
          assertThat(stats.gaps()).isZero();

          long before = second.node.stats().originRequests();
          tables.planAndReadFooters(second.node.endpoint(), "db", "events");
          assertThat(second.node.stats().originRequests() - before).isZero();
        }
      } finally {
        first.close();
      }
    }
    assertThat(handled).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aGapInTheFeedWarmsEveryKnownTableAgain() {
    Path origin = dir.resolve("origin");
    Path state = dir.resolve("state");
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), TOKEN, 2)) {
      TestingCacheNode first = node(origin, feed.uri(), state, 0);
      try (TestingTables tables = new TestingTables(dir.resolve("catalog.db"), first.node.endpoint())) {
        Table table = tables.create("db", "events", Map.of());
        commit(tables, table, feed);
        awaitHandled(1);
        first.close();
        for (int i = 0; i < 4; i++) {
          feed.publish(event("db", "other" + i, null)); // the feed keeps only the last two
        }
        try (TestingCacheNode second = node(origin, feed.uri(), state, first.node.port())) {
          awaitHandled(3);
          CommitWarmingITCase.awaitWarm(second.node, 2);
          AwarenessStats stats = second.node.stats().awareness();
          assertThat(stats.gaps()).isEqualTo(1);
          assertThat(stats.lastSequence()).isEqualTo(5);
        }
      } finally {
        first.close();
      }
    }
    assertThat(handled).containsExactly(1L, 4L, 5L);
  }

  @Test
  void withoutStateItStartsAtTheFeedsEndAndWarmsTheTablesTheFeedRetains() {
    try (TestingFeedServer feed = new TestingFeedServer(dir.resolve("feed"), TOKEN)) {
      URI[] endpoint = new URI[1];
      try (TestingCacheNode bootstrap = new TestingCacheNode(dir.resolve("origin"));
          TestingTables tables = new TestingTables(dir.resolve("catalog.db"), bootstrap.node.endpoint())) {
        Table table = tables.create("db", "events", Map.of());
        commit(tables, table, feed);
        commit(tables, table, feed);
        endpoint[0] = bootstrap.node.endpoint();
      }
      try (TestingCacheNode cache = node(dir.resolve("origin"), feed.uri(), null, endpoint[0].getPort());
          TestingTables tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint())) {
        Eventually.await("the startup walk", () -> cache.node.stats().awareness().walksCompleted() == 1
            && cache.node.stats().awareness().walksPending() == 0, () -> cache.node.stats().toJson());
        AwarenessStats stats = cache.node.stats().awareness();
        assertThat(stats.eventsHandled()).isZero();
        assertThat(stats.lastSequence()).isEqualTo(2);
        assertThat(stats.tablesKnown()).isEqualTo(1);

        long before = cache.node.stats().originRequests();
        tables.planAndReadFooters(cache.node.endpoint(), "db", "events");
        assertThat(cache.node.stats().originRequests() - before).isZero();
      }
    }
    assertThat(handled).isEmpty();
  }

  @Test
  void unknownEventTypesAndUnreadableLinesAreSkippedAndCounted() {
    try (TestingScriptedFeed feed = new TestingScriptedFeed(TOKEN);
        TestingCacheNode cache = node(dir.resolve("origin"), feed.uri(), null, 0)) {
      feed.add(FeedEventParser.toJson(event("db", "a", null).withFeedSequence(1)));
      feed.add("{\"specversion\":\"1.0\",\"id\":\"r-1\",\"source\":\"a-newer-producer\","
          + "\"type\":\"io.verglas.table.renamed\",\"subject\":\"db.a\",\"time\":\"2026-01-01T00:00:00Z\","
          + "\"feedsequence\":2,\"data\":{\"table\":[\"db\",\"a\"],\"to\":[\"db\",\"b\"]}}");
      feed.add("this line is not JSON");
      feed.add(FeedEventParser.toJson(event("db", "a", null).withFeedSequence(4)));
      awaitHandled(2);
      feed.add(FeedEventParser.toJson(event("db", "a", null).withFeedSequence(5)));
      awaitHandled(3);

      AwarenessStats stats = cache.node.stats().awareness();
      assertThat(stats.unknownEventsSkipped()).isEqualTo(1);
      assertThat(stats.malformedLinesSkipped()).isEqualTo(1);
      assertThat(stats.eventsHandled()).isEqualTo(3);
      assertThat(stats.lastSequence()).isEqualTo(5);
      assertThat(stats.reconnects()).isZero();
    }
    assertThat(handled).containsExactly(1L, 4L, 5L);
  }

  @Test
  void aFeedRefusingTheTokenIsRetriedWithBackoff() {
    try (TestingScriptedFeed feed = new TestingScriptedFeed("another-token");
        TestingCacheNode cache = new TestingCacheNode(dir.resolve("origin"), o -> o,
            b -> b.awareness(config(feed.uri(), null)))) {
      feed.add(FeedEventParser.toJson(event("db", "a", null).withFeedSequence(1)));
      Eventually.await("reconnections", () -> cache.node.stats().awareness().reconnects() >= 3);
      assertThat(cache.node.stats().awareness().feedConnected()).isFalse();
      assertThat(cache.node.stats().awareness().eventsHandled()).isZero();
    }
  }

  private void commit(TestingTables tables, Table table, TestingFeedServer feed) {
    tables.append(table, 2, 10);
    feed.publish(TestingTables.commitEvent(table));
  }

  private void awaitHandled(int count) {
    Eventually.await(count + " events handled", () -> handled.size() >= count, handled::toString);
  }

  /** A node following {@code feed} (once it follows), with {@code state} if not null. */
  private TestingCacheNode node(Path origin, URI feed, Path state, int port) {
    TestingCacheNode cache = new TestingCacheNode(origin, o -> o, b -> {
      b.port(port);
      b.awareness(config(feed, state));
    });
    Eventually.await("the watcher following the feed", () -> cache.node.stats().awareness().feedConnected());
    return cache;
  }

  private AwarenessConfig config(URI feed, Path state) {
    AwarenessConfig.Builder config = AwarenessConfig.builder()
        .feedUri(feed)
        .feedToken(TOKEN)
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(400))
        .listener(event -> handled.add(event.feedSequence()));
    if (state != null) {
      config.stateDirectory(state);
    }
    return config.build();
  }

  private static CatalogEvent event(String namespace, String table, String metadataLocation) {
    String uuid = java.util.UUID.randomUUID().toString();
    return new CatalogEvent(CatalogEvent.eventId(uuid, 1), "test", Instant.now(),
        List.of(namespace, table), uuid, 1, null, "append", 1, 0, Map.of(), metadataLocation, 0);
  }
}
