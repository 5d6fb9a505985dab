package io.verglas.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.verglas.events.publish.Backoff;
import io.verglas.events.publish.DurableOutbox;
import io.verglas.events.publish.OutboxSender;
import io.verglas.events.publish.TestingLog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpEventPublisherTest {
  static final Backoff FAST = new Backoff(Duration.ofMillis(10), Duration.ofMillis(200));
  static final Duration ARRIVAL = Duration.ofSeconds(30);
  @TempDir Path dir;
  final TestingFeedServer feed = TestingFeedServer.onFreePort();

  @AfterEach
  void stopFeed() {
    feed.close();
  }

  @Test
  void publishReturnsAtOnceWhileTheFeedIsSlowAndTheEventsArriveWhenItRecovers()
      throws Exception {
    feed.start().slowDown(); // every request waits 30 s
    try (HttpEventPublisher publisher = publisher().build()) {
      List<Long> millis = new ArrayList<>();
      for (int i = 1; i <= 5; i++) {
        long start = System.nanoTime();
        publisher.publish(TestingEvents.commit("ns.t", i));
        millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      }
      System.out.println("publish() while the feed is slow, ms: " + millis);
      assertThat(millis.stream().sorted().toList().get(2)).as("median").isLessThan(100);
      assertThat(millis).allMatch(ms -> ms < 500);
      assertThat(feed.distinct()).isEmpty();

      feed.recover();
      assertThat(feed.awaitDistinct(5, ARRIVAL)).containsExactlyElementsOf(ids(1, 5));
    }
  }

  @Test
  void eventsPublishedWhileTheFeedIsDownAreSentInOrderByTheNextPublisher() throws Exception {
    HttpEventPublisher first = publisher().build();
    publish(first, 1, 100);
    long start = System.nanoTime();
    first.close(); // the feed is down: close gives up at the first failure
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));

    feed.start();
    try (HttpEventPublisher second = publisher().build()) {
      assertThat(feed.awaitDistinct(100, ARRIVAL)).containsExactlyElementsOf(ids(1, 100));
    }
    assertThat(feed.received()).as("repeats only as retries of ids the feed has")
        .hasSizeGreaterThanOrEqualTo(100).allMatch(ids(1, 100)::contains);
  }

  @Test
  void theEventsOfAKilledPublisherAreSentInOrderByTheNextOne() throws Exception {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", System.getProperty("java.class.path"),
        OutboxCrashChild.class.getName(), feed.uri().toString(), outboxDir().toString(), "100")
        .redirectErrorStream(true).start();
    try {
      awaitLine(child, OutboxCrashChild.PUBLISHED);
    } finally {
      child.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no close, no flush
    }

    feed.start();
    try (HttpEventPublisher next = publisher().build()) {
      assertThat(feed.awaitDistinct(100, ARRIVAL)).containsExactlyElementsOf(ids(1, 100));
    }
  }

  @Test
  void aTornLastLineIsSkippedWithAWarnAndLaterEventsArrive() throws Exception {
    try (HttpEventPublisher first = publisher().build()) {
      publish(first, 1, 3);
    }
    Path segment = newestSegment(outboxDir().resolve("slot-0"));
    Files.write(segment, "1 0badf00d {\"id\":\"uuid-ns.t:99\",\"sou".getBytes(
        StandardCharsets.UTF_8), StandardOpenOption.APPEND); // a crash mid-append

    try (TestingLog log = new TestingLog(DurableOutbox.class);
        HttpEventPublisher second = publisher().build()) {
      publish(second, 4, 5);
      feed.start();
      assertThat(feed.awaitDistinct(5, ARRIVAL)).containsExactlyElementsOf(ids(1, 5));
      assertThat(log.warnings("incomplete line")).hasSize(1);
    }
  }

  @Test
  void theOutboxBoundHoldsWhileTheFeedIsDownAndTheNewestEventsArrive() throws Exception {
    long bound = DurableOutbox.MAX_BYTES_MIN;
    try (TestingLog log = new TestingLog(DurableOutbox.class);
        HttpEventPublisher publisher = publisher().outboxMaxBytes(bound).build()) {
      publish(publisher, 1, 600); // about three times the bound

      assertThat(segmentBytes(publisher.outboxDirectory())).isLessThanOrEqualTo(bound);
      long dropped = publisher.dropped();
      assertThat(dropped).isPositive();
      assertThat(log.messages(Level.ERROR)).isNotEmpty();

      feed.start();
      int kept = (int) (600 - dropped);
      assertThat(feed.awaitDistinct(kept, ARRIVAL)).as("the newest, in order")
          .containsExactlyElementsOf(ids(600 - kept + 1, 600));
    }
  }

  @Test
  void aRefusedCredentialIsLoggedOnceAndRetriedNeverDropped() throws Exception {
    feed.start().requireToken("rotated");
    try (TestingLog log = new TestingLog(OutboxSender.class, HttpEventPublisher.class,
        DurableOutbox.class);
        HttpEventPublisher publisher = publisher().token("s3cret").build()) {
      publish(publisher, 1, 2);
      awaitRequests(5);
      assertThat(feed.distinct()).isEmpty();

      feed.requireToken("s3cret"); // an operator fixes the configuration
      assertThat(feed.awaitDistinct(2, ARRIVAL)).containsExactlyElementsOf(ids(1, 2));
      assertThat(feed.authorizations()).allMatch("Bearer s3cret"::equals);
      assertThat(log.warnings("Cannot publish event " + ids(1, 1).get(0) + " to " + feed.uri()
          + ": the change feed refused the credential (HTTP 401)")).hasSize(1);
      assertThat(log.messages(Level.DEBUG)).isNotEmpty().noneMatch(m -> m.contains("s3cret"));
      assertThat(publisher.toString()).doesNotContain("s3cret").contains("credential=bearer");
    }
  }

  @Test
  void withoutATokenNoAuthorizationIsSent() throws Exception {
    feed.start();
    try (HttpEventPublisher publisher = publisher().build()) {
      publish(publisher, 1, 1);
      assertThat(feed.awaitDistinct(1, ARRIVAL)).hasSize(1);
      assertThat(feed.authorizations()).containsExactly("");
    }
  }

  @Test
  void refusesAnInvalidTokenWithoutShowingIt() {
    assertThatThrownBy(() -> publisher().token("two words"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid feed token: it must be printable ASCII without spaces (value not"
            + " shown)");
    assertThatThrownBy(() -> HttpEventPublisher.builder(feed.uri()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build the event publisher for " + feed.uri() + ": no outbox directory");
  }

  @Test
  void aClosedPublisherRefusesEventsClearly() {
    HttpEventPublisher publisher = publisher().build();
    publisher.close();
    publisher.close();

    assertThatThrownBy(() -> publisher.publish(TestingEvents.commit("ns.t", 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot publish event uuid-ns.t:1: the outbox ");
  }

  private HttpEventPublisher.Builder publisher() {
    return HttpEventPublisher.builder(feed.uri()).outboxDir(outboxDir()).backoff(FAST)
        .closeTimeout(Duration.ofSeconds(2));
  }

  private Path outboxDir() {
    return dir.resolve("outbox");
  }

  static void publish(EventPublisher publisher, long from, long to) {
    for (long i = from; i <= to; i++) {
      publisher.publish(TestingEvents.commit("ns.t", i));
    }
  }

  static List<String> ids(long from, long to) {
    List<String> ids = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      ids.add(TestingEvents.commit("ns.t", i).id());
    }
    return ids;
  }

  private void awaitRequests(int count) throws InterruptedException {
    long deadline = System.nanoTime() + ARRIVAL.toNanos();
    while (feed.authorizations().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(feed.authorizations()).hasSizeGreaterThanOrEqualTo(count);
  }

  private static void awaitLine(Process process, String expected) throws Exception {
    BufferedReader lines = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    CompletableFuture<Boolean> found = CompletableFuture.supplyAsync(() -> {
      try {
        for (String line; (line = lines.readLine()) != null; ) {
          seen.add(line);
          if (line.equals(expected)) {
            return true;
          }
        }
        return false;
      } catch (IOException e) {
        return false;
      }
    });
    assertThat(found.get(120, TimeUnit.SECONDS)).as("the child's output: %s", seen).isTrue();
  }

  private static Path newestSegment(Path slot) throws IOException {
    try (Stream<Path> files = Files.list(slot)) {
      return files.filter(f -> f.toString().endsWith(".outbox")).max(Path::compareTo)
          .orElseThrow();
    }
  }

  private static long segmentBytes(Path slot) throws IOException {
    try (Stream<Path> files = Files.list(slot)) {
      long bytes = 0;
      for (Path file : files.filter(f -> f.toString().endsWith(".outbox")).toList()) {
        bytes += Files.size(file);
      }
      return bytes;
    }
  }
}
