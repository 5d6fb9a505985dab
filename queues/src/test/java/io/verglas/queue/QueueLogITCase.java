package io.verglas.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.queue.group.GroupConsumer;
import io.verglas.queue.group.LeasedMessages;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** Publishing and reading a queue's log on a cache node: order, concurrency, format, corruption. */
class QueueLogITCase extends OnCacheNode {
  static QueueMessage text(String s) {
    return QueueMessage.of(s.getBytes(StandardCharsets.UTF_8));
  }

  static String text(Delivery d) {
    return new String(d.message().payload(), StandardCharsets.UTF_8);
  }

  /** Everything the consumer gets until the group has nothing more, acknowledged. */
  static List<Delivery> drain(GroupConsumer consumer) {
    List<Delivery> all = new ArrayList<>();
    Optional<LeasedMessages> next;
    while ((next = consumer.poll()).isPresent()) {
      all.addAll(next.get().messages());
      assertThat(consumer.ack(next.get().lease())).isTrue();
    }
    return all;
  }

  @Test
  void deliversKeysHeadersAndPayloadsInPublishOrder() {
    try (Queues queues = fixture.queues(QueueSettings.defaults())) {
      QueuePosition first = queues.publish("orders", List.of(
          new QueueMessage("k1", new byte[] {1, 2, 3}, Map.of("type", "created", "v", "1")),
          new QueueMessage(null, new byte[0], Map.of())));
      queues.publish("orders", List.of(text("third")));
      List<Delivery> got = drain(queues.consumer("orders", "g", "c1"));
      assertThat(got).hasSize(3);
      assertThat(got.get(0).position()).isEqualTo(first);
      assertThat(got.get(0).message().key()).isEqualTo("k1");
      assertThat(got.get(0).message().payload()).containsExactly(1, 2, 3);
      assertThat(got.get(0).message().headers()).containsExactlyInAnyOrderEntriesOf(
          Map.of("type", "created", "v", "1"));
      assertThat(got.get(1).message().key()).isNull();
      assertThat(got.get(1).message().payload()).isEmpty();
      assertThat(text(got.get(2))).isEqualTo("third");
      assertThat(got).extracting(Delivery::position).isSorted();
      assertThat(got.get(0).publishedAtMillis()).isPositive();
    }
  }

  @Test
  void concurrentPublishersInTwoProcessesLoseNothingAndKeepEachOnesOrder() throws Exception {
    int perThread = 30;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (Queues a = fixture.queues(QueueSettings.defaults());
        Queues b = fixture.queues(QueueSettings.defaults())) {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Queues side = t % 2 == 0 ? a : b;
        String name = "p" + t;
        runs.add(pool.submit(() -> {
          List<CompletableFuture<QueuePosition>> acks = new ArrayList<>();
          for (int i = 0; i < perThread; i++) {
            acks.add(side.publisher("race").publish(List.of(text(name + "-" + i))));
            if (i % 10 == 9) {
              acks.forEach(CompletableFuture::join);
            }
          }
          acks.forEach(CompletableFuture::join);
        }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
      List<Delivery> got = drain(a.consumer("race", "g", "c"));
      assertThat(got).hasSize(4 * perThread);
      for (int t = 0; t < 4; t++) {
        String name = "p" + t;
        List<String> mine = got.stream().map(QueueLogITCase::text)
            .filter(s -> s.startsWith(name + "-")).toList();
        assertThat(mine).hasSize(perThread);
        for (int i = 0; i < perThread; i++) {
          assertThat(mine.get(i)).isEqualTo(name + "-" + i);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void corruptSegmentFailsWithTheObjectNamedAndIsNotAcknowledged() {
    try (Queues queues = fixture.queues(QueueSettings.defaults())) {
      QueuePosition at = queues.publish("broken", List.of(text("one")));
      String key = queues.layout().segmentKey("broken", at.sequence());
      byte[] bytes = fixture.s3.getObjectAsBytes(r -> r.bucket(QueueFixture.BUCKET).key(key))
          .asByteArray();
      bytes[bytes.length - 7] ^= 0x5a;
      fixture.s3.putObject(r -> r.bucket(QueueFixture.BUCKET).key(key),
          RequestBody.fromBytes(bytes));
      GroupConsumer consumer = queues.consumer("broken", "g", "c");
      assertThatThrownBy(consumer::poll).isInstanceOf(QueueException.class)
          .hasMessageContaining("Cannot read queue broken: segment s3://queues/" + key
              + " is corrupt").hasMessageContaining("checksum mismatch");
      assertThat(queues.group("broken", "g").state().acked()).isEqualTo(-1);
      assertThatThrownBy(consumer::poll).hasMessageContaining("is corrupt");
    }
  }

  @Test
  void rejectsBadNamesAndEmptyPublishes() {
    try (Queues queues = fixture.queues(QueueSettings.defaults())) {
      assertThatThrownBy(() -> queues.publish("no/slash", List.of(text("x"))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Invalid queue name");
      assertThatThrownBy(() -> queues.publish("q", List.of()))
          .hasMessage("Cannot publish to queue q: no messages");
      assertThatThrownBy(() -> queues.consumer("q", "bad group", "c"))
          .hasMessageContaining("Invalid consumer group");
    }
  }
}
