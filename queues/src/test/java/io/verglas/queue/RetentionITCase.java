package io.verglas.queue;

import static io.verglas.queue.QueueLogITCase.drain;
import static io.verglas.queue.QueueLogITCase.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.group.LeasedMessages;
import io.verglas.queue.retention.RetentionPolicy;
import io.verglas.queue.retention.RetentionSweeper;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retention on a cache node: only what every group acknowledged goes; sequences are never reused. */
class RetentionITCase extends OnCacheNode {
  private static List<String> segments(Queues queues, String queue) {
    return queues.log(queue).segmentsAfter(-1, 1000).stream().map(s -> s.key()).toList();
  }

  @Test
  void deletesOnlySegmentsEveryGroupAcknowledgedAndPublishingContinuesAfterThem() {
    RetentionPolicy bySize = new RetentionPolicy(Duration.ofDays(365), 0);
    try (Queues queues = fixture.queues(QueueSettings.defaults().withRetention(bySize))) {
      for (int i = 0; i < 5; i++) {
        queues.publish("logs", List.of(text("m" + i)));
      }
      assertThat(drain(queues.consumer("logs", "fast", "f"))).hasSize(5);
      GroupConsumer slow = queues.consumer("logs", "slow", "s");
      LeasedMessages first = slow.poll().orElseThrow();
      assertThat(slow.ack(first.lease())).isTrue();
      long slowAcked = queues.group("logs", "slow").state().acked();

      assertThat(queues.expire("logs")).isEqualTo((int) slowAcked + 1);
      assertThat(segments(queues, "logs")).hasSize(5 - (int) slowAcked - 1);
      assertThat(queues.log("logs").highWater()).isEqualTo(slowAcked);
      assertThat(queues.expire("logs")).as("nothing more until the slow group moves").isZero();

      assertThat(drain(slow)).hasSize(5 - (int) slowAcked - 1);
      assertThat(queues.expire("logs")).isEqualTo(5 - (int) slowAcked - 1);
      assertThat(segments(queues, "logs")).isEmpty();
    }
    try (Queues restarted = fixture.queues(QueueSettings.defaults())) {
      QueuePosition next = restarted.publish("logs", List.of(text("after")));
      assertThat(next.sequence()).as("a new publisher never reuses a deleted sequence")
          .isEqualTo(5);
      assertThat(QueueLogITCase.text(drain(restarted.consumer("logs", "slow", "s")).get(0)))
          .isEqualTo("after");
      assertThat(drain(restarted.consumer("logs", "late", "l"))).as("a new group starts at the"
          + " oldest kept segment").extracting(QueueLogITCase::text).containsExactly("after");
    }
  }

  @Test
  void theSweeperRunsRetentionOnEveryQueueOfTheBucketOnItsSchedule() throws Exception {
    RetentionPolicy bySize = new RetentionPolicy(Duration.ofDays(365), 0);
    try (Queues queues = fixture.queues(QueueSettings.defaults().withRetention(bySize))) {
      for (String queue : List.of("swept-a", "swept-b", "swept-b.dead.g")) {
        for (int i = 0; i < 3; i++) {
          queues.publish(queue, List.of(text(queue + i)));
        }
        assertThat(drain(queues.consumer(queue, "g", "c"))).hasSize(3);
      }
      try (RetentionSweeper sweeper = queues.sweepRetention(Duration.ofMillis(200))) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while ((!segments(queues, "swept-a").isEmpty() || !segments(queues, "swept-b").isEmpty()
            || !segments(queues, "swept-b.dead.g").isEmpty()) && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertThat(segments(queues, "swept-a")).isEmpty();
        assertThat(segments(queues, "swept-b")).isEmpty();
        assertThat(segments(queues, "swept-b.dead.g")).isEmpty();
        assertThat(sweeper.segmentsDeleted()).isGreaterThanOrEqualTo(9);
        assertThat(sweeper.failures()).isZero();
      }
    }
    assertThatRefused(() -> new RetentionSweeper(action -> { }, queue -> 0, Duration.ZERO),
        "Invalid queue retention interval: PT0S");
  }

  private static void assertThatRefused(Runnable action, String message) {
    org.assertj.core.api.Assertions.assertThatThrownBy(action::run).hasMessage(message);
  }

  @Test
  void keepsYoungSegmentsUnderTheSizeBoundEvenWhenAcknowledged() {
    RetentionPolicy generous = new RetentionPolicy(Duration.ofDays(1), 1L << 30);
    try (Queues queues = fixture.queues(QueueSettings.defaults().withRetention(generous))) {
      for (int i = 0; i < 3; i++) {
        queues.publish("young", List.of(text("m" + i)));
      }
      assertThat(drain(queues.consumer("young", "g", "c"))).hasSize(3);
      assertThat(queues.expire("young")).isZero();
      fixture.clock.advance(Duration.ofDays(2));
      assertThat(queues.expire("young")).isEqualTo(3);
    }
  }
}
