package io.verglas.events.publish;

import static io.verglas.events.publish.DurableOutboxTest.append;
import static io.verglas.events.publish.DurableOutboxTest.id;
import static io.verglas.events.publish.DurableOutboxTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.publish.Delivery.Result;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutboxSenderTest {
  static final Backoff FAST = new Backoff(Duration.ofMillis(1), Duration.ofMillis(20));
  @TempDir Path dir;

  @Test
  void retriesAnEntryUntilDeliveredAndKeepsTheOrder() throws Exception {
    TestingDelivery delivery = new TestingDelivery()
        .then(Result.retry("HTTP 503 busy"), 5).then(Result.retry("timed out"), 3);
    try (TestingLog log = new TestingLog(OutboxSender.class);
        DurableOutbox outbox = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN)) {
      append(outbox, 1, 3);
      OutboxSender sender = new OutboxSender("t", outbox, List.of(), delivery, FAST);
      sender.start();

      assertThat(delivery.awaitDelivered(3, 10_000)).containsExactly(id(1), id(2), id(3));
      sender.close(Duration.ofSeconds(1));
      assertThat(delivery.attempts()).hasSize(11).startsWith(id(1), id(1), id(1));
      assertThat(outbox.pendingBytes()).isZero();
      // One WARN per reason, not per attempt.
      assertThat(log.warnings("Cannot publish event " + id(1))).hasSize(2);
    }
  }

  @Test
  void skipsAnEntryTheFeedRejectsForGood() throws Exception {
    TestingDelivery delivery = new TestingDelivery().then(Result.rejected("HTTP 400 bad"), 1);
    try (TestingLog log = new TestingLog(OutboxSender.class);
        DurableOutbox outbox = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN)) {
      append(outbox, 1, 3);
      OutboxSender sender = new OutboxSender("t", outbox, List.of(), delivery, FAST);
      sender.start();

      assertThat(delivery.awaitDelivered(2, 10_000)).containsExactly(id(2), id(3));
      sender.close(Duration.ofSeconds(1));
      assertThat(sender.rejected()).isEqualTo(1);
      assertThat(log.messages(ch.qos.logback.classic.Level.ERROR)).singleElement()
          .asString().contains(id(1), "HTTP 400 bad", "skipped");
    }
  }

  @Test
  void drainsAbandonedOutboxesFirstAndReleasesThem() throws Exception {
    DurableOutbox old = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN);
    append(old, 1, 2);
    old.close(); // its publisher stopped
    TestingDelivery delivery = new TestingDelivery();
    try (DurableOutbox outbox = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN);
        DurableOutbox extra = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN)) {
      append(extra, 3, 4); // a second publisher's outbox, abandoned below
      extra.close();
      append(outbox, 5, 6);
      List<DurableOutbox> abandoned =
          DurableOutbox.claimAbandoned(dir, DurableOutbox.MAX_BYTES_MIN);
      OutboxSender sender = new OutboxSender("t", outbox, abandoned, delivery, FAST);
      sender.start();

      // The new publisher took slot 0 back, with what its predecessor left there; slot 1 was
      // abandoned and goes first.
      assertThat(delivery.awaitDelivered(6, 10_000)).as("own entries after the abandoned ones")
          .containsExactly(id(3), id(4), id(1), id(2), id(5), id(6));
      sender.close(Duration.ofSeconds(1));
      assertThat(DurableOutbox.claimAbandoned(dir, DurableOutbox.MAX_BYTES_MIN)).isEmpty();
    }
  }

  @Test
  void closeStopsAtTheFirstFailureAndKeepsTheRest() throws Exception {
    TestingDelivery delivery = new TestingDelivery().then(Result.delivered(), 2)
        .then(Result.retry("connection refused"), 1_000);
    try (DurableOutbox outbox = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN)) {
      OutboxSender sender = new OutboxSender("t", outbox, List.of(), delivery,
          new Backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)));
      sender.start();
      append(outbox, 1, 5);
      sender.wake();
      delivery.awaitDelivered(2, 10_000);

      long start = System.nanoTime();
      sender.close(Duration.ofSeconds(20));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(delivery.delivered()).containsExactly(id(1), id(2));
    }
    try (DurableOutbox again = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN)) {
      assertThat(DurableOutboxTest.drain(again)).containsExactlyElementsOf(ids(3, 5));
    }
  }

  @Test
  void closeIsBoundedWhenAnAttemptHangs() throws IOException {
    TestingDelivery delivery = new TestingDelivery();
    delivery.hang();
    try (DurableOutbox outbox = DurableOutbox.claim(dir, DurableOutbox.MAX_BYTES_MIN)) {
      append(outbox, 1, 1);
      OutboxSender sender = new OutboxSender("t", outbox, List.of(), delivery, FAST);
      sender.start();

      long start = System.nanoTime();
      sender.close(Duration.ofMillis(200));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(outbox.pendingBytes()).isPositive();
    }
  }
}
