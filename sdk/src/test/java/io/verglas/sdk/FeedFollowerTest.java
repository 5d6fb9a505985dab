package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.verglas.events.CatalogEvent;
import io.verglas.events.TableMaintainedEvent;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.ChangeFeedHttpHandler;
import io.verglas.events.feed.FeedAccess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Following one table on a real change feed served over HTTP: only that table's commits, in
 * order, maintenance events skipped; a dropped feed is resumed without losing or repeating a
 * commit; a kept position resumes a new follower; a refused token ends the follower clearly.
 */
class FeedFollowerTest {
  private static final TableIdentifier SALES = TableIdentifier.of("shop", "sales");
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private ChangeFeed feed;
  private HttpServer server;
  private ChangeFeedHttpHandler handler;
  private int port;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws IOException {
    feed = new ChangeFeed(dir.resolve("feed.jsonl"), 1000);
    serve(0, FeedAccess.open());
  }

  @AfterEach
  void stop() {
    halt();
    feed.close();
  }

  @Test
  void followsOneTablesCommitsAcrossAFeedRestartAndFromAKeptPosition() throws IOException {
    feed.append(commit("sales", 1));
    feed.append(commit("other", 7));
    feed.append(expiry("sales"));
    feed.append(commit("sales", 2));
    TableCommit second;
    try (FeedFollower follower = follower(1)) {
      TableCommit first = follower.poll(WAIT);
      assertThat(first.snapshotId()).isEqualTo(1);
      assertThat(first.parentSnapshotId()).isNull();
      assertThat(first.summary()).containsEntry("added-records", "5");
      second = follower.poll(WAIT);
      assertThat(second.snapshotId()).isEqualTo(2);
      assertThat(second.position()).isEqualTo(4);

      halt();                                     // the feed goes down mid-follow
      feed.append(commit("sales", 3));
      assertThat(follower.poll(Duration.ofMillis(300))).isNull();
      serve(port, FeedAccess.open());             // and comes back on the same port
      assertThat(follower.poll(WAIT).snapshotId()).isEqualTo(3);
      assertThat(follower.poll(Duration.ofMillis(300))).as("nothing repeated").isNull();
    }
    try (FeedFollower resumed = follower(second.nextPosition())) {
      assertThat(resumed.poll(WAIT).snapshotId()).isEqualTo(3);
    }
  }

  @Test
  void aRefusedTokenEndsTheFollowerWithItsReason() throws IOException {
    halt();
    serve(port, FeedAccess.tokens("publish-token", "read-token", false));
    try (FeedFollower follower = follower(1)) {
      assertThatThrownBy(() -> follower.poll(WAIT)).isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED))
          .hasMessageContaining("Cannot follow shop.sales: the change feed answered 401");
    }
    assertThatThrownBy(() -> new FeedFollower(http, events(), null, SALES, 0))
        .hasMessage("Invalid feed position: 0 (1 or more)");
  }

  private FeedFollower follower(long from) {
    return new FeedFollower(http, events(), null, SALES, from);
  }

  private URI events() {
    return URI.create("http://127.0.0.1:" + port + "/events");
  }

  private void serve(int onPort, FeedAccess access) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 0);
    handler = new ChangeFeedHttpHandler(feed, access, 4, Duration.ofMillis(100));
    server.createContext("/events", handler);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    port = server.getAddress().getPort();
  }

  private void halt() {
    if (server != null) {
      handler.close();
      server.stop(0);
      server = null;
    }
  }

  private static CatalogEvent commit(String table, long snapshotId) {
    String uuid = "uuid-" + table;
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshotId), "verglas://test",
        Instant.parse("2026-12-01T10:00:00Z"), List.of("shop", table), uuid, snapshotId,
        snapshotId > 1 ? snapshotId - 1 : null, "append", snapshotId, 1_000L * snapshotId,
        Map.of("added-records", "5"), "s3://warehouse/" + table + "/metadata/v1.json", 0);
  }

  private static TableMaintainedEvent expiry(String table) {
    String uuid = "uuid-" + table;
    return new TableMaintainedEvent(
        TableMaintainedEvent.eventId(uuid, TableMaintainedEvent.EXPIRE_SNAPSHOTS, "c1"),
        "verglas://test", Instant.parse("2026-12-01T11:00:00Z"), List.of("shop", table), uuid,
        TableMaintainedEvent.EXPIRE_SNAPSHOTS, "s3://warehouse/" + table + "/metadata/v2.json",
        List.of(1L), Map.of("data", 3L), "c1", 0);
  }
}
