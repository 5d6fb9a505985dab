package io.verglas.queue.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.queue.retention.RetentionPlanner.Segment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetentionPlannerTest {
  private static final List<Segment> LOG = List.of(new Segment(0, 100, 0),
      new Segment(1, 100, 10), new Segment(2, 100, 20), new Segment(3, 100, 30));

  @Test
  void expiresTheOldPrefixBelowTheAcknowledgedPosition() {
    RetentionPolicy age = new RetentionPolicy(Duration.ofMillis(15), Long.MAX_VALUE);
    assertThat(RetentionPlanner.expired(LOG, 3, 30, age)).as("older than 15 ms: 0 and 1")
        .isEqualTo(2);
    assertThat(RetentionPlanner.expired(LOG, 0, 30, age)).as("group at 0").isEqualTo(1);
    assertThat(RetentionPlanner.expired(LOG, -1, 30, age)).isZero();
  }

  @Test
  void expiresByTheBytesOfNewerSegments() {
    RetentionPolicy size = new RetentionPolicy(Duration.ofDays(1), 200);
    assertThat(RetentionPlanner.expired(LOG, 3, 30, size)).as("keep the newest 200 bytes")
        .isEqualTo(2);
    assertThat(RetentionPlanner.expired(LOG, Long.MAX_VALUE, 30,
        new RetentionPolicy(Duration.ofDays(1), 1000))).isZero();
  }
}
