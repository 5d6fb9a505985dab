package io.verglas.queue;

import static io.verglas.queue.QueueLogITCase.drain;
import static io.verglas.queue.QueueLogITCase.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.group.GroupSettings;
import io.verglas.queue.group.LeasedMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Consumer groups on a cache node: positions per group, redelivery after a consumer dies, fencing. */
class ConsumerGroupITCase extends OnCacheNode {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static QueueSettings settings(int segmentsPerLease) {
    return QueueSettings.defaults().withGroups(new GroupSettings(LEASE, segmentsPerLease,
        GroupSettings.MAX_LEASES_DEFAULT, fixture.clock));
  }

  private static void publish(Queues queues, String queue, int from, int to) {
    for (int i = from; i < to; i++) {
      queues.publish(queue, List.of(text("m" + i)));
    }
  }

  private static List<String> texts(List<Delivery> deliveries) {
    return deliveries.stream().map(QueueLogITCase::text).toList();
  }

  @Test
  void deadConsumersMessagesAreRedeliveredAfterTheLeaseTimeoutAndItsAckIsFenced() {
    try (Queues queues = fixture.queues(settings(2))) {
      publish(queues, "jobs", 0, 6);
      GroupConsumer dying = queues.consumer("jobs", "workers", "dying");
      GroupConsumer survivor = queues.consumer("jobs", "workers", "survivor");
      LeasedMessages lost = dying.poll().orElseThrow();
      assertThat(texts(lost.messages())).containsExactly("m0", "m1");

      LeasedMessages next = survivor.poll().orElseThrow();
      assertThat(texts(next.messages())).containsExactly("m2", "m3");
      assertThat(survivor.ack(next.lease())).isTrue();
      assertThat(queues.group("jobs", "workers").state().acked())
          .as("the acknowledged position waits for the dead consumer's segments").isEqualTo(-1);

      fixture.clock.advance(LEASE.minusSeconds(1));
      assertThat(texts(survivor.poll().orElseThrow().messages()))
          .as("before the timeout the survivor gets new segments").containsExactly("m4", "m5");
      fixture.clock.advance(Duration.ofSeconds(2));
      LeasedMessages redelivered = survivor.poll().orElseThrow();
      assertThat(texts(redelivered.messages())).containsExactly("m0", "m1");
      assertThat(redelivered.lease().generation()).isGreaterThan(lost.lease().generation());

      assertThat(dying.ack(lost.lease())).as("a stale consumer's ack is fenced").isFalse();
      assertThat(survivor.ack(redelivered.lease())).isTrue();
      assertThat(queues.group("jobs", "workers").state().acked())
          .as("over the redelivered lease and the one acknowledged after it").isEqualTo(3);
    }
  }

  @Test
  void groupsKeepIndependentPositionsAndReleasedLeasesComeBackAtOnce() {
    try (Queues queues = fixture.queues(settings(1))) {
      publish(queues, "events", 0, 4);
      assertThat(texts(drain(queues.consumer("events", "audit", "a"))))
          .containsExactly("m0", "m1", "m2", "m3");
      GroupConsumer billing = queues.consumer("events", "billing", "b");
      LeasedMessages first = billing.poll().orElseThrow();
      assertThat(texts(first.messages())).containsExactly("m0");
      assertThat(billing.release(first.lease())).isTrue();
      assertThat(texts(billing.poll().orElseThrow().messages())).containsExactly("m0");

      publish(queues, "events", 4, 5);
      assertThat(texts(drain(queues.consumer("events", "audit", "a")))).containsExactly("m4");
      assertThat(queues.group("events", "audit").state().acked()).isEqualTo(4);
      assertThat(queues.group("events", "billing").state().acked()).isEqualTo(-1);
    }
  }

  @Test
  void concurrentConsumersOfOneGroupSeeEveryMessageExactlyOnceWhenNobodyDies() throws Exception {
    try (Queues queues = fixture.queues(settings(1))) {
      publish(queues, "shared", 0, 9);
      ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
          GroupConsumer consumer = queues.consumer("shared", "g", "c" + c);
          runs.add(pool.submit(() -> {
            Optional<LeasedMessages> next;
            while ((next = consumer.poll()).isPresent()) {
              next.get().messages().forEach(d -> seen.add(QueueLogITCase.text(d)));
              assertThat(consumer.ack(next.get().lease())).isTrue();
            }
          }));
        }
        for (Future<?> run : runs) {
          run.get();
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(seen).hasSize(9).doesNotHaveDuplicates();
      assertThat(queues.group("shared", "g").state().acked()).isEqualTo(8);
    }
  }
}
