package io.verglas.materializer.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WalMarkTest {
  @Test
  void partialThenCompleteSegment() {
    WalMark mark = WalMark.NONE.advance(new SegmentProgress("s", 0, 2, 5));
    assertThat(mark).isEqualTo(new WalMark(-1, 2));
    assertThat(mark.covers(0, 1)).isTrue();
    assertThat(mark.covers(0, 2)).isFalse();
    assertThat(mark.covers(new SegmentProgress("s", 0, 2, 5))).isTrue();
    assertThat(mark.covers(new SegmentProgress("s", 0, 5, 5))).isFalse();
    mark = mark.advance(new SegmentProgress("s", 0, 5, 5));
    assertThat(mark).isEqualTo(new WalMark(0, 0));
    assertThat(mark.coversSegment(0, 5)).isTrue();
  }

  @Test
  void reachingIntoALaterSegmentCompletesEverythingBefore() {
    // Segments 1..3 of the stream belong to other tables: this table's next segment is 4.
    WalMark mark = new WalMark(0, 0).advance(new SegmentProgress("s", 4, 3, 10));
    assertThat(mark).isEqualTo(new WalMark(3, 3));
    assertThat(mark.covers(4, 2)).isTrue();
    assertThat(mark.covers(4, 3)).isFalse();
    assertThat(mark.covers(new SegmentProgress("s", 2, 1, 1))).isTrue();
  }

  @Test
  void laterPicksTheMarkThatCoversMore() {
    WalMark partial = new WalMark(2, 5);
    assertThat(WalMark.later(partial, new WalMark(3, 0))).isEqualTo(new WalMark(3, 0));
    assertThat(WalMark.later(partial, new WalMark(2, 1))).isEqualTo(partial);
    assertThat(WalMark.later(WalMark.NONE, partial)).isEqualTo(partial);
  }

  @Test
  void advancingWithOlderProgressChangesNothing() {
    WalMark mark = new WalMark(7, 0);
    assertThat(mark.advance(new SegmentProgress("s", 3, 1, 9))).isEqualTo(mark);
    assertThat(mark.advance(new SegmentProgress("s", 7, 9, 9))).isEqualTo(mark);
  }

  @Test
  void summaryRoundTrips() {
    Map<String, WalMark> marks = Map.of("a", new WalMark(4, 0), "b", new WalMark(-1, 12));
    Map<String, String> summary = WalSummary.toSummary(marks);
    assertThat(summary).containsEntry("verglas.wal.a", "4").containsEntry("verglas.wal.b", "-1")
        .containsEntry("verglas.wal-rows.b", "12").doesNotContainKey("verglas.wal-rows.a");
    assertThat(WalSummary.parse(summary)).isEqualTo(marks);
  }

  /** Against a model that remembers every committed row, for random in-order consumption. */
  @Test
  void matchesASetOfCommittedRows() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      Map<Long, Long> rowCounts = new HashMap<>();
      Set<String> committed = new HashSet<>();
      WalMark mark = WalMark.NONE;
      long sequence = random.nextInt(3);
      long row = 0;
      long rows = 1 + random.nextInt(6);
      for (int step = 0; step < 12; step++) {
        // consume a few more rows in log order, possibly skipping segments of other tables
        long take = 1 + random.nextInt(5);
        for (long i = 0; i < take; i++) {
          if (row == rows) {
            sequence += 1 + random.nextInt(2);
            row = 0;
            rows = 1 + random.nextInt(6);
          }
          rowCounts.put(sequence, rows);
          committed.add(sequence + ":" + row);
          row++;
        }
        mark = mark.advance(new SegmentProgress("s", sequence, row, rows));
        for (Map.Entry<Long, Long> segment : rowCounts.entrySet()) {
          for (long r = 0; r < segment.getValue(); r++) {
            boolean inModel = committed.contains(segment.getKey() + ":" + r);
            assertThat(mark.covers(segment.getKey(), r))
                .as("seed %s, mark %s, row %s:%s", seed, mark, segment.getKey(), r)
                .isEqualTo(inModel);
          }
        }
      }
    }
  }
}
