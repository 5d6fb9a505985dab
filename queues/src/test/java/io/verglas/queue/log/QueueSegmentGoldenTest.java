package io.verglas.queue.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.arrow.ArrowIpc;
import io.verglas.queue.QueueMessage;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * {@code queue/segment-v2.bin}: a queue segment as documented in docs/queues.md (queue
 * {@code orders}, sequence 7, two batches of 2 and 1 messages), read with the WAL codec and the
 * message batch codec. A reader change that cannot read it breaks stored queues.
 */
class QueueSegmentGoldenTest {
  @Test
  void readsTheGoldenSegment() throws Exception {
    byte[] bytes;
    try (InputStream in = getClass().getResourceAsStream("/queue/segment-v2.bin")) {
      bytes = in.readAllBytes();
    }
    WalSegment segment = WalSegmentCodec.decode(bytes);
    assertThat(segment.header().streamId()).isEqualTo("orders");
    assertThat(segment.header().sequence()).isEqualTo(7);
    assertThat(segment.header().tableName()).containsExactly("_queues", "orders");
    assertThat(segment.header().recordCount()).isEqualTo(3);
    try (RootAllocator allocator = new RootAllocator()) {
      MessageBatchCodec codec = new MessageBatchCodec(allocator);
      List<QueueMessage> first = codec.decode(segment.batches().get(0).arrowIpc());
      assertThat(first).hasSize(2);
      assertThat(first.get(0).key()).isEqualTo("order-17");
      assertThat(first.get(0).payload()).containsExactly(1, 2, 3);
      assertThat(first.get(0).headers()).isEqualTo(Map.of("type", "created"));
      assertThat(first.get(1).key()).isNull();
      assertThat(codec.decode(segment.batches().get(1).arrowIpc()).get(0).payload())
          .isEqualTo("hello".getBytes());
    }
  }

  @Test
  void refusesABatchThatIsNotMessages() {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
            Field.nullable("x", new ArrowType.Int(32, true)))), allocator)) {
      ((IntVector) root.getVector("x")).setSafe(0, 1);
      root.setRowCount(1);
      byte[] ipc = ArrowIpc.encode(root);
      assertThatThrownBy(() -> new MessageBatchCodec(allocator).decode(ipc))
          .isInstanceOf(CorruptSegmentException.class)
          .hasMessageStartingWith("Cannot read queue batch: unexpected schema");
    }
  }
}
