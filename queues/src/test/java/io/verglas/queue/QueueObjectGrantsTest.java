package io.verglas.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.access.ObjectGrant;
import io.verglas.queue.group.DeadLetters;
import io.verglas.queue.log.QueueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The grants of each verb reach exactly the keys of the layout that verb touches. */
class QueueObjectGrantsTest {
  private static final QueueLayout LAYOUT = new QueueLayout();
  private static final String BUCKET = "warehouse";

  private static boolean reaches(List<ObjectGrant> grants, String key, boolean write) {
    return grants.stream().anyMatch(g -> g.covers(BUCKET, key, write));
  }

  @Test
  void publishWritesTheQueuesSegmentsAndHighWaterOnly() {
    List<ObjectGrant> grants = QueueObjectGrants.publish(BUCKET, "orders");
    assertThat(reaches(grants, LAYOUT.segmentKey("orders", 7), true)).isTrue();
    assertThat(reaches(grants, LAYOUT.segments().highWaterKey("orders"), true)).isTrue();
    assertThat(reaches(grants, LAYOUT.segmentKey("orders2", 7), false)).isFalse();
    assertThat(reaches(grants, LAYOUT.groupKey("orders", "g"), false)).isFalse();
    assertThat(reaches(grants, "shop/orders/data/f.parquet", false)).isFalse();
  }

  @Test
  void consumeReadsSegmentsWritesGroupStateAndDeadLetters() {
    List<ObjectGrant> grants = QueueObjectGrants.consume(BUCKET, "orders");
    assertThat(reaches(grants, LAYOUT.segmentKey("orders", 7), false)).isTrue();
    assertThat(reaches(grants, LAYOUT.segmentKey("orders", 7), true)).isFalse();
    assertThat(reaches(grants, LAYOUT.groupKey("orders", "any-group"), true)).isTrue();
    String deadLetters = DeadLetters.queueOf("orders", "any-group");
    assertThat(reaches(grants, LAYOUT.segmentKey(deadLetters, 1), true)).isTrue();
    assertThat(reaches(grants, LAYOUT.segments().highWaterKey(deadLetters), true)).isTrue();
    assertThat(reaches(grants, LAYOUT.groupKey("orders2", "g"), false)).isFalse();
    assertThat(reaches(grants, LAYOUT.segmentKey("orders2", 7), false)).isFalse();
  }
}
