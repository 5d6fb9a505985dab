package io.verglas.events.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.CatalogEvent;
import io.verglas.events.TestingEvents;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableOutboxTest {
  static final long SMALL = DurableOutbox.MAX_BYTES_MIN;
  @TempDir Path dir;

  @Test
  void deliversInOrderAndAnAckMovesPastOneEntryOnce() throws IOException {
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      assertThat(outbox.peek()).isEmpty();
      append(outbox, 1, 3);

      OutboxEntry first = outbox.peek().orElseThrow();
      assertThat(outbox.peek()).contains(first); // not acknowledged: the same entry again
      outbox.ack(first);
      outbox.ack(first); // twice: nothing more
      assertThat(drain(outbox)).containsExactly(id(2), id(3));
      assertThat(outbox.pendingBytes()).isZero();
    }
  }

  @Test
  void aClaimAfterCloseFindsWhatWasNotAcknowledged() throws IOException {
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 1, 5);
      outbox.ack(outbox.peek().orElseThrow());
      outbox.ack(outbox.peek().orElseThrow());
    }
    try (DurableOutbox again = DurableOutbox.claim(dir, SMALL)) {
      assertThat(again.directory()).isEqualTo(dir.resolve("slot-0").toAbsolutePath());
      assertThat(drain(again)).containsExactly(id(3), id(4), id(5));
    }
  }

  @Test
  void twoPublishersNeverShareASlotAndAbandonedOnesAreClaimedWhole() throws IOException {
    DurableOutbox first = DurableOutbox.claim(dir, SMALL);
    try (DurableOutbox second = DurableOutbox.claim(dir, SMALL)) {
      assertThat(second.directory()).isNotEqualTo(first.directory());
      append(second, 1, 2);
      assertThat(DurableOutbox.claimAbandoned(dir, SMALL)).as("both slots are held").isEmpty();
    }
    try (DurableOutbox held = first) {
      List<DurableOutbox> abandoned = DurableOutbox.claimAbandoned(dir, SMALL);
      assertThat(abandoned).hasSize(1);
      try (DurableOutbox left = abandoned.get(0)) {
        assertThat(left.directory()).isEqualTo(dir.resolve("slot-1").toAbsolutePath());
        assertThat(drain(left)).containsExactly(id(1), id(2));
      }
    }
    assertThat(DurableOutbox.claimAbandoned(dir, SMALL)).as("nothing left to send").isEmpty();
  }

  @Test
  void anIncompleteLastLineIsCutWithAWarnAndLaterEntriesGoOn() throws IOException {
    Path segment;
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 1, 2);
      segment = segments(outbox.directory()).get(0);
    }
    // A crash during the third append: half a line, no terminator.
    byte[] third = OutboxLine.encode("{\"id\":\"" + id(3) + "\",\"filler\":\"xxxxxxxx\"}");
    Files.write(segment, java.util.Arrays.copyOf(third, third.length / 2),
        StandardOpenOption.APPEND);

    try (TestingLog log = new TestingLog(DurableOutbox.class);
        DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 4, 5);
      assertThat(drain(outbox)).containsExactly(id(1), id(2), id(4), id(5));
      assertThat(log.warnings("incomplete line")).hasSize(1);
    }
  }

  @Test
  void aCorruptLineIsSkippedWithAWarn() throws IOException {
    Path segment;
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 1, 3);
      segment = segments(outbox.directory()).get(0);
    }
    String text = Files.readString(segment, StandardCharsets.UTF_8);
    int second = text.indexOf('\n') + 1;
    try (RandomAccessFile raw = new RandomAccessFile(segment.toFile(), "rw")) {
      raw.seek(second + 40); // inside the second line's JSON
      raw.write('#');
    }

    try (TestingLog log = new TestingLog(DurableOutbox.class);
        DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      assertThat(drain(outbox)).containsExactly(id(1), id(3));
      assertThat(outbox.skipped()).isEqualTo(1);
      assertThat(log.warnings("Corrupt outbox line: checksum")).hasSize(1);
    }
  }

  @Test
  void keepsItsBoundByDroppingTheOldestEntries() throws IOException {
    int count = 600; // about three times the bound
    try (TestingLog log = new TestingLog(DurableOutbox.class);
        DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      for (int i = 1; i <= count; i++) {
        append(outbox, i, i);
        assertThat(outbox.diskBytes()).isLessThanOrEqualTo(SMALL);
        if (i % 50 == 0) {
          assertThat(directoryBytes(outbox.directory())).isLessThanOrEqualTo(SMALL);
        }
      }
      List<String> kept = drain(outbox);

      assertThat(outbox.dropped()).isPositive().isEqualTo(count - kept.size());
      assertThat(kept).as("the newest, in order")
          .containsExactlyElementsOf(ids(count - kept.size() + 1, count));
      assertThat(log.messages(ch.qos.logback.classic.Level.ERROR))
          .allMatch(m -> m.contains("reached its bound of " + SMALL + " bytes"))
          .isNotEmpty();
    }
  }

  @Test
  void anEntryLargerThanTheLimitIsRefusedAndChangesNothing() throws IOException {
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 1, 1);
      long before = outbox.diskBytes();
      CatalogEvent huge = new CatalogEvent("big:1", "verglas://test", java.time.Instant.EPOCH,
          List.of("ns", "t"), "big", 1, null, "append", 1, 0,
          Map.of("x", "y".repeat((int) SMALL)), null, 0);

      assertThatThrownBy(() -> outbox.append(huge))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot publish event big:1: its ")
          .hasMessageEndingWith("bytes exceed the outbox entry limit of " + SMALL / 8);
      assertThat(outbox.diskBytes()).isEqualTo(before);
      assertThat(drain(outbox)).containsExactly(id(1));
    }
  }

  @Test
  void deliveredSegmentsAreDeleted() throws IOException {
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 1, 100); // several segments of SMALL / 8
      assertThat(segments(outbox.directory()).size()).isGreaterThan(2);

      assertThat(drain(outbox)).hasSize(100);
      assertThat(outbox.peek()).isEmpty();
      assertThat(segments(outbox.directory())).hasSize(1);
      assertThat(outbox.dropped()).isZero();
    }
  }

  @Test
  void aDamagedMarkerSendsEverythingAgainWithAWarn() throws IOException {
    try (DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      append(outbox, 1, 3);
      outbox.ack(outbox.peek().orElseThrow());
    }
    Files.write(dir.resolve("slot-0").resolve("delivered"), new byte[64]);

    try (TestingLog log = new TestingLog(DurableOutbox.class);
        DurableOutbox outbox = DurableOutbox.claim(dir, SMALL)) {
      assertThat(drain(outbox)).containsExactly(id(1), id(2), id(3));
      assertThat(log.warnings("both records are damaged")).hasSize(1);
    }
  }

  @Test
  void refusesATooSmallBound() {
    assertThatThrownBy(() -> DurableOutbox.claim(dir, 1000))
        .hasMessage("Invalid outbox max bytes: 1000 (at least 65536)");
  }

  @Test
  void aClosedOutboxRefusesAppendsNamingTheEvent() throws IOException {
    DurableOutbox outbox = DurableOutbox.claim(dir, SMALL);
    outbox.close();
    outbox.close();

    assertThatThrownBy(() -> outbox.append(TestingEvents.commit("ns.t", 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot publish event uuid-ns.t:1: the outbox " + outbox.directory()
            + " is closed");
  }

  static String id(long snapshot) {
    return TestingEvents.commit("ns.t", snapshot).id();
  }

  static List<String> ids(long from, long to) {
    List<String> ids = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      ids.add(id(i));
    }
    return ids;
  }

  static void append(DurableOutbox outbox, long from, long to) throws IOException {
    for (long i = from; i <= to; i++) {
      outbox.append(TestingEvents.commit("ns.t", i));
    }
  }

  /** Every entry left, acknowledged one by one. */
  static List<String> drain(DurableOutbox outbox) throws IOException {
    List<String> ids = new ArrayList<>();
    for (Optional<OutboxEntry> next = outbox.peek(); next.isPresent(); next = outbox.peek()) {
      ids.add(next.get().id());
      outbox.ack(next.get());
    }
    return ids;
  }

  static List<Path> segments(Path slot) throws IOException {
    try (Stream<Path> files = Files.list(slot)) {
      return files.filter(f -> f.toString().endsWith(".outbox")).sorted().toList();
    }
  }

  /** The bytes of a slot's segment files. */
  static long directoryBytes(Path slot) throws IOException {
    long bytes = 0;
    for (Path file : segments(slot)) {
      bytes += Files.size(file);
    }
    return bytes;
  }
}
