package io.verglas.queue;

import static io.verglas.queue.QueueLogITCase.drain;
import static io.verglas.queue.QueueLogITCase.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.queue.group.DeadLetters;
import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.group.GroupSettings;
import io.verglas.queue.group.LeasedMessages;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** Dead-letter queues on a cache node: poison segments leave the group after its delivery bound. */
class DeadLetterITCase extends OnCacheNode {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static QueueSettings settings(int maxDeliveries) {
    return QueueSettings.defaults().withGroups(new GroupSettings(LEASE, 1,
        GroupSettings.MAX_LEASES_DEFAULT, fixture.clock, maxDeliveries));
  }

  @Test
  void aSegmentReleasedOrTimedOutTooOftenGoesToTheGroupsDeadLetterQueueWithItsOrigin() {
    try (Queues queues = fixture.queues(settings(3))) {
      queues.publish("orders", List.of(new QueueMessage("k1", "poison".getBytes(),
          Map.of("trace", "t-1"))));
      queues.publish("orders", List.of(text("fine")));
      GroupConsumer consumer = queues.consumer("orders", "billing", "c");

      for (int delivery = 1; delivery <= 3; delivery++) {
        LeasedMessages poison = consumer.poll().orElseThrow();
        assertThat(poison.lease().deliveries()).isEqualTo(delivery);
        assertThat(QueueLogITCase.text(poison.messages().get(0))).isEqualTo("poison");
        if (delivery < 3) {
          assertThat(consumer.release(poison.lease())).isTrue();   // the handler failed
        } else {
          fixture.clock.advance(LEASE.plusSeconds(1));   // the consumer died holding it
        }
      }
      LeasedMessages next = consumer.poll().orElseThrow();
      assertThat(QueueLogITCase.text(next.messages().get(0)))
          .as("the fourth delivery goes to the dead-letter queue instead").isEqualTo("fine");
      assertThat(consumer.ack(next.lease())).isTrue();
      assertThat(queues.group("orders", "billing").state().acked())
          .as("the group moved past the poison segment").isEqualTo(1);
      assertThat(consumer.poll()).isEmpty();

      assertThat(DeadLetters.queueOf("orders", "billing")).isEqualTo("orders.dead.billing");
      List<Delivery> dead = drain(queues.consumer("orders.dead.billing", "ops", "o"));
      assertThat(dead).hasSize(1);
      QueueMessage copy = dead.get(0).message();
      assertThat(copy.key()).isEqualTo("k1");
      assertThat(new String(copy.payload())).isEqualTo("poison");
      assertThat(copy.headers()).containsEntry("trace", "t-1")
          .containsEntry(DeadLetters.FROM, "orders").containsEntry(DeadLetters.GROUP, "billing")
          .containsEntry(DeadLetters.POSITION, "0:0").containsEntry(DeadLetters.DELIVERIES, "3");
      assertThat(drain(queues.consumer("orders", "audit", "a")))
          .as("another group's deliveries are its own").hasSize(2);
    }
  }

  @Test
  void aCorruptSegmentIsDeadLetteredAsAMessageNamingIt() {
    try (Queues queues = fixture.queues(settings(1))) {
      QueuePosition at = queues.publish("broken2", List.of(text("one")));
      queues.publish("broken2", List.of(text("two")));
      String key = queues.layout().segmentKey("broken2", at.sequence());
      byte[] bytes = fixture.s3.getObjectAsBytes(r -> r.bucket(QueueFixture.BUCKET).key(key))
          .asByteArray();
      bytes[bytes.length - 7] ^= 0x5a;
      fixture.s3.putObject(r -> r.bucket(QueueFixture.BUCKET).key(key), RequestBody.fromBytes(bytes));
      GroupConsumer consumer = queues.consumer("broken2", "g", "c");

      assertThatThrownBy(consumer::poll).hasMessageContaining("is corrupt");
      assertThat(QueueLogITCase.text(consumer.poll().orElseThrow().messages().get(0)))
          .as("the second delivery of the corrupt segment was dead-lettered").isEqualTo("two");

      List<Delivery> dead = drain(queues.consumer(DeadLetters.queueOf("broken2", "g"), "ops", "o"));
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).message().payload()).isEmpty();
      assertThat(dead.get(0).message().headers())
          .containsEntry(DeadLetters.SEGMENT, Long.toString(at.sequence()))
          .hasEntrySatisfying(DeadLetters.ERROR, error -> assertThat(error).contains("is corrupt"));
    }
  }

  @Test
  void refusesBoundsAndNamesItCannotKeep() {
    assertThatThrownBy(() -> GroupSettings.defaults().withMaxDeliveries(0))
        .hasMessageContaining("Invalid delivery bound: 0");
    assertThatThrownBy(() -> DeadLetters.queueOf("q".repeat(100), "g".repeat(40)))
        .hasMessageStartingWith("Cannot name the dead-letter queue of group");
  }
}
