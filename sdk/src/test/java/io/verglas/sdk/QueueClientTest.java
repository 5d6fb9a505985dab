package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.queue.Delivery;
import io.verglas.queue.QueueException;
import io.verglas.queue.QueueMessage;
import io.verglas.store.ObjectStoreEndpoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two queue verbs against a cache node over a local directory (the local plane's store). */
class QueueClientTest {
  @TempDir Path origin;

  private static QueueMessage message(String text) {
    return new QueueMessage(text, text.getBytes(StandardCharsets.UTF_8), Map.of("kind", "test"));
  }

  private static List<String> keys(List<Delivery> deliveries) {
    return deliveries.stream().map(d -> d.message().key()).toList();
  }

  @Test
  void publishesAndConsumesInOrderAndRedeliversWhatAFailedHandlerHeld() throws Exception {
    try (CacheNode node = CacheNode.builder().credentials("sdk-test", "sdk-test-secret")
        .origin(new LocalDirectoryOrigin(origin)).dramCapacityBytes(32L << 20).build().start()) {
      ObjectStoreEndpoint endpoint = new ObjectStoreEndpoint(node.endpoint(), node.region(),
          "sdk-test", "sdk-test-secret", "bucket");
      try (var admin = endpoint.newClient()) {
        admin.createBucket(b -> b.bucket("bucket"));
      }
      try (QueueClient producer = QueueClient.connect(endpoint);
          QueueClient failing = QueueClient.connect(endpoint);
          QueueClient working = QueueClient.connect(endpoint)) {
        producer.publish("orders", List.of(message("a"), message("b")));
        producer.publish("orders", List.of(message("c")));

        assertThatThrownBy(() -> failing.consume("orders", "billing", batch -> {
          throw new IllegalStateException("boom");
        })).isInstanceOf(QueueException.class)
            .hasMessageContaining("Cannot consume queue orders in group billing: the handler "
                + "failed on 3 messages");

        List<Delivery> got = new ArrayList<>();
        assertThat(working.consume("orders", "billing", got::addAll)).isEqualTo(3);
        assertThat(keys(got)).containsExactly("a", "b", "c");
        assertThat(got.get(0).message().headers()).containsEntry("kind", "test");
        assertThat(working.consume("orders", "billing", got::addAll)).isZero();
        assertThat(failing.consume("orders", "audit", got::addAll))
            .as("another group starts from the beginning").isEqualTo(3);
      }
    }
  }
}
