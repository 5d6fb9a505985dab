package io.verglas.events.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import io.verglas.events.HttpEventPublisher;
import io.verglas.events.TableMaintainedEvent;
import io.verglas.events.TestingEvents;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangeFeedTest {
  @TempDir Path dir;

  @Test
  void numbersEventsAndIgnoresRepublishedIds() {
    try (ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), 100)) {
      CatalogEvent first = feed.append(TestingEvents.commit("a.t", 1));
      CatalogEvent again = feed.append(TestingEvents.commit("a.t", 1));
      CatalogEvent second = feed.append(TestingEvents.commit("b.t", 2));

      assertThat(first.feedSequence()).isEqualTo(1);
      assertThat(again).isEqualTo(first);
      assertThat(second.feedSequence()).isEqualTo(2);
      assertThat(feed.read(1, new EventFilter("b.t", null), 10)).containsExactly(second);
      assertThat(feed.read(1, new EventFilter(null, "a"), 10)).containsExactly(first);
    }
  }

  @Test
  void maintenanceEventsShareTheSequenceTheDedupAndTheFilters() {
    Path file = dir.resolve("feed.jsonl");
    try (ChangeFeed feed = new ChangeFeed(file, 100)) {
      CatalogEvent commit = feed.append(TestingEvents.commit("a.t", 1));
      TableMaintainedEvent expiry = feed.append(TestingEvents.expiry("a.t", "c-1"));
      TableMaintainedEvent retried = feed.append(TestingEvents.expiry("a.t", "c-1"));
      TableMaintainedEvent other = feed.append(TestingEvents.expiry("b.t", "c-2"));

      assertThat(expiry.feedSequence()).isEqualTo(2);
      assertThat(retried).isEqualTo(expiry);
      assertThat(other.feedSequence()).isEqualTo(3);
      assertThat(feed.read(1, new EventFilter("a.t", null), 10)).containsExactly(commit, expiry);
      assertThat(feed.read(1, new EventFilter(null, "b"), 10)).containsExactly(other);
    }
    try (ChangeFeed reopened = new ChangeFeed(file, 100)) {
      assertThat(reopened.read(2, EventFilter.all(), 10)).first()
          .isEqualTo(TestingEvents.expiry("a.t", "c-1").withFeedSequence(2));
    }
  }

  @Test
  void anIdHeldByAnotherEventTypeIsRejectedAndNothingIsAppended() {
    try (ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), 100)) {
      CatalogEvent commit = feed.append(TestingEvents.commit("a.t", 1));
      TableMaintainedEvent clash = TestingEvents.expiry("a.t", "c");
      TableMaintainedEvent sameId = new TableMaintainedEvent(commit.id(), clash.source(),
          clash.time(), clash.table(), clash.tableUuid(), clash.operation(),
          clash.metadataLocation(), clash.expiredSnapshotIds(), clash.deletedFiles(),
          clash.commitId(), 0);

      assertThatThrownBy(() -> feed.append(sameId))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the feed holds a org.apache.iceberg.snapshot.committed event");
      assertThat(feed.lastSequence()).isEqualTo(1);
    }
  }

  @Test
  void recoversAfterRestartAndStaysBounded() {
    Path file = dir.resolve("feed.jsonl");
    try (ChangeFeed feed = new ChangeFeed(file, 10)) {
      for (int i = 1; i <= 35; i++) {
        feed.append(TestingEvents.commit("a.t", i));
      }
    }
    try (ChangeFeed reopened = new ChangeFeed(file, 10)) {
      assertThat(reopened.lastSequence()).isEqualTo(35);
      List<FeedEvent> events = reopened.read(1, EventFilter.all(), 100);
      assertThat(events).hasSize(10);
      assertThat(events.get(0).feedSequence()).isEqualTo(26);
      assertThat(reopened.append(TestingEvents.commit("a.t", 36)).feedSequence()).isEqualTo(36);
    }
  }

  @Test
  void httpFollowStreamsNewEventsAndPublisherPosts() throws Exception {
    try (ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), 100)) {
      ChangeFeedHttpHandler handler = new ChangeFeedHttpHandler(feed, 4, Duration.ofMillis(200));
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/events", handler);
      server.setExecutor(Executors.newFixedThreadPool(4));
      server.start();
      URI events = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
      try {
        feed.append(TestingEvents.commit("a.t", 1));
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<java.io.InputStream> response = client.send(
            HttpRequest.newBuilder(URI.create(events + "?from=1&follow=true&table=a.t")).build(),
            HttpResponse.BodyHandlers.ofInputStream());
        BufferedReader lines = new BufferedReader(
            new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        CompletableFuture<List<FeedEvent>> received = CompletableFuture.supplyAsync(() ->
            readEvents(lines, 3));

        try (HttpEventPublisher publisher =
            HttpEventPublisher.builder(events).outboxDir(dir.resolve("outbox")).build()) {
          publisher.publish(TestingEvents.commit("b.t", 5));
          publisher.publish(TestingEvents.commit("a.t", 2));
          publisher.publish(TestingEvents.expiry("a.t", "c-1"));
          publisher.publish(TestingEvents.expiry("a.t", "c-1"));
        }

        List<FeedEvent> got = received.get(10, TimeUnit.SECONDS);
        assertThat(got).extracting(FeedEvent::id).containsExactly("uuid-a.t:1", "uuid-a.t:2",
            "uuid-a.t:expire-snapshots:c-1");
        assertThat(got).extracting(FeedEvent::feedSequence).containsExactly(1L, 3L, 4L);
        assertThat(feed.lastSequence()).as("the retried publish was deduplicated").isEqualTo(4);
        response.body().close();
      } finally {
        handler.close();
        server.stop(0);
      }
    }
  }

  private static List<FeedEvent> readEvents(BufferedReader lines, int count) {
    try {
      List<FeedEvent> events = new java.util.ArrayList<>();
      while (events.size() < count) {
        String line = lines.readLine();
        if (line == null) {
          break;
        }
        if (!line.isBlank()) {
          events.add(FeedEventParser.fromJson(line));
        }
      }
      return events;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
