package io.verglas.workers.subscribe;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.workers.schedule.TestDatabase;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Stored feed positions on PostgreSQL: per subscriber, and never moved back. */
class FeedPositionsITCase {
  @Test
  void positionsArePerSubscriberAndNeverMoveBack() throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      FeedPositions positions = new FeedPositions(db.database());
      Instant now = Instant.parse("2026-12-03T08:00:00Z");
      assertThat(positions.load("a")).isEmpty();
      positions.save("a", 10, now);
      positions.save("b", 3, now);
      positions.save("a", 7, now.plusSeconds(1)); // a late writer of an older position
      assertThat(positions.load("a")).contains(10L);
      assertThat(positions.load("b")).contains(3L);
      positions.save("a", 12, now.plusSeconds(2));
      assertThat(positions.load("a")).contains(12L);
    }
  }
}
