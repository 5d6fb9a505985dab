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
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
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
  void theWindowIsBoundedInBytesAndTheIdDedupFollowsIt() {
    int eventBytes = line(TestingEvents.commit("a.t", 20).withFeedSequence(20)).length;
    FeedBounds bounds = new FeedBounds(1_000, 5L * eventBytes + 20, eventBytes + 100);
    try (ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), bounds)) {
      for (int i = 1; i <= 20; i++) {
        feed.append(TestingEvents.commit("a.t", i));
        assertThat(feed.windowBytes()).isLessThanOrEqualTo(bounds.retainedBytes());
      }
      List<FeedEvent> window = feed.read(1, EventFilter.all(), 100);
      assertThat(window).extracting(FeedEvent::feedSequence).containsExactly(16L, 17L, 18L, 19L, 20L);

      CatalogEvent evicted = feed.append(TestingEvents.commit("a.t", 1));
      CatalogEvent retained = feed.append(TestingEvents.commit("a.t", 20));
      assertThat(evicted.feedSequence()).as("an id that left the window is new again").isEqualTo(21);
      assertThat(retained.feedSequence()).as("an id in the window is deduplicated").isEqualTo(20);
    }
  }

  @Test
  void anEventOverTheMaxSizeIsRefusedAndLeavesTheFeedAndItsFileUntouched() throws Exception {
    Path file = dir.resolve("feed.jsonl");
    CatalogEvent small = TestingEvents.commit("a.t", 1);
    CatalogEvent large = TestingEvents.commit("a.t" + "x".repeat(2_000), 2);
    try (ChangeFeed feed = new ChangeFeed(file, new FeedBounds(100, 1 << 20, 1_024))) {
      feed.append(small);
      byte[] before = Files.readAllBytes(file);

      assertThatThrownBy(() -> feed.append(large))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot append event " + large.id())
          .hasMessageContaining("over the max event size of 1024");
      assertThat(feed.lastSequence()).isEqualTo(1);
      assertThat(Files.readAllBytes(file)).isEqualTo(before);
      assertThat(feed.append(TestingEvents.commit("a.t", 3)).feedSequence()).isEqualTo(2);
    }
  }

  @Test
  void publishedJsonThatIsNotAnEventIsAnIllegalArgument() {
    String commit = FeedEventParser.toJson(TestingEvents.commit("a.t", 1));
    try (ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), 100)) {
      assertThatThrownBy(() -> feed.appendJson(commit.replace("2026-11-29T10:00:00Z", "noon")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot publish event: ").hasMessageContaining("noon");
      assertThatThrownBy(() -> feed.appendJson("[".repeat(100_000)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot publish event: ");
      assertThat(feed.lastSequence()).isZero();
      assertThat(feed.appendJson(commit).feedSequence()).isEqualTo(1);
    }
  }

  @Test
  void recoverySkipsATornLastLineCorruptAndOversizedLinesAndAppendsCleanlyAfter()
      throws Exception {
    Path file = dir.resolve("feed.jsonl");
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(line(TestingEvents.commit("a.t", 1).withFeedSequence(1)));
      out.write(("{\"padding\":\"" + "x".repeat(5_000) + "\"}\n").getBytes(StandardCharsets.UTF_8));
      out.write(line(TestingEvents.commit("a.t", 2).withFeedSequence(2)));
      out.write("{not json\n".getBytes(StandardCharsets.UTF_8));
      out.write(line(TestingEvents.commit("a.t", 3).withFeedSequence(3)));
      byte[] torn = line(TestingEvents.commit("a.t", 4).withFeedSequence(4));
      out.write(torn, 0, torn.length / 2);
    }

    try (ChangeFeed feed = new ChangeFeed(file, new FeedBounds(100, 1 << 20, 2_000))) {
      assertThat(feed.skippedLines()).as("oversized, corrupt and torn").isEqualTo(3);
      assertThat(feed.lastSequence()).isEqualTo(3);
      assertThat(feed.read(1, EventFilter.all(), 10)).extracting(FeedEvent::feedSequence)
          .containsExactly(1L, 2L, 3L);
      assertThat(feed.append(TestingEvents.commit("a.t", 4)).feedSequence()).isEqualTo(4);
    }
    try (ChangeFeed reopened = new ChangeFeed(file, new FeedBounds(100, 1 << 20, 2_000))) {
      assertThat(reopened.skippedLines()).as("only the two complete bad lines remain").isEqualTo(2);
      assertThat(reopened.read(4, EventFilter.all(), 10)).extracting(FeedEvent::id)
          .containsExactly(TestingEvents.commit("a.t", 4).id());
    }
  }

  /**
   * A feed file of about 50 MB, one line of 20 MB among its events and a torn last line, is
   * recovered by a JVM with a 48 MB heap: recovery streams the file and keeps only the window
   * (reading the file whole, as before, runs out of memory), then compacts the file.
   */
  @Test
  void recoveryOfAFileFarLargerThanTheWindowStreamsItInABoundedHeap() throws Exception {
    Path file = dir.resolve("feed.jsonl");
    long last = writeLargeFeed(file, 50L << 20);
    FeedBounds bounds = new FeedBounds(100_000, 1L << 20, 64 * 1024);

    List<String> output = recoverInSmallJvm(file, bounds);

    String result = output.stream().filter(l -> l.startsWith("RECOVERED ")).findFirst()
        .orElseThrow(() -> new AssertionError("no result; output:\n" + String.join("\n", output)));
    String[] fields = result.split(" ");
    assertThat(Long.parseLong(fields[1])).as("last sequence").isEqualTo(last);
    assertThat(Long.parseLong(fields[2])).as("window bytes")
        .isPositive().isLessThanOrEqualTo(bounds.retainedBytes());
    assertThat(Long.parseLong(fields[3])).as("the oversized and the torn line").isEqualTo(2);
    assertThat(Files.size(file)).as("compacted").isLessThanOrEqualTo(2 * bounds.retainedBytes());
    try (ChangeFeed reopened = new ChangeFeed(file, bounds)) {
      assertThat(reopened.lastSequence()).isEqualTo(last);
      assertThat(reopened.skippedLines()).isZero();
    }
  }

  @Test
  void compactionKeepsTheFileWithinTwiceTheByteBound() throws Exception {
    Path file = dir.resolve("feed.jsonl");
    FeedBounds bounds = new FeedBounds(1_000_000, 16 * 1024, 2 * 1024);
    try (ChangeFeed feed = new ChangeFeed(file, bounds)) {
      for (int i = 1; i <= 500; i++) {
        feed.append(TestingEvents.commit("a.t", i));
        assertThat(Files.size(file)).isLessThan(2 * bounds.retainedBytes());
      }
      assertThat(feed.windowBytes()).isLessThanOrEqualTo(bounds.retainedBytes());
    }
    try (ChangeFeed reopened = new ChangeFeed(file, bounds)) {
      assertThat(reopened.lastSequence()).isEqualTo(500);
    }
  }

  /** Writes numbered events up to about {@code bytes}, a 20 MB line among them, a torn end. */
  private static long writeLargeFeed(Path file, long bytes) throws IOException {
    long sequence = 0;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
      long written = 0;
      while (written < bytes) {
        byte[] line = line(TestingEvents.commit("a.t", sequence + 1).withFeedSequence(sequence + 1));
        out.write(line);
        written += line.length;
        sequence++;
        if (sequence == 1_000) {
          byte[] huge = new byte[20 << 20];
          Arrays.fill(huge, (byte) 'x');
          out.write(huge);
          out.write('\n');
          written += huge.length;
        }
      }
      out.write("{\"specversion\":\"1.0\",\"id\":\"tor".getBytes(StandardCharsets.UTF_8));
    }
    return sequence;
  }

  private static List<String> recoverInSmallJvm(Path file, FeedBounds bounds) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    Process process = new ProcessBuilder(java, "-Xmx48m", "-cp", classpath,
        FeedRecoveryMain.class.getName(), file.toString(),
        Integer.toString(bounds.retainedEvents()), Long.toString(bounds.retainedBytes()),
        Integer.toString(bounds.maxEventBytes()))
        .redirectErrorStream(true).start();
    List<String> output;
    try (BufferedReader lines = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      output = lines.lines().toList();
    }
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(String.join("\n", output)).isZero();
    return output;
  }

  private static byte[] line(FeedEvent event) {
    return (FeedEventParser.toJson(event) + "\n").getBytes(StandardCharsets.UTF_8);
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
