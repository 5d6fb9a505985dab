package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TableWriterRetryTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("demo", "events");

  private BufferAllocator allocator;
  private TestingFlightServer server;
  private final List<VectorSchemaRoot> roots = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    allocator = new RootAllocator();
    server = new TestingFlightServer(allocator);
  }

  @AfterEach
  void stop() throws Exception {
    roots.forEach(VectorSchemaRoot::close);
    server.close();
    allocator.close();
  }

  private VerglasClient client(int retries, boolean autoKeys) {
    return VerglasClient.builder().uri(server.uri()).allocator(allocator).writeRetries(retries)
        .retryBackoff(Duration.ofMillis(10)).autoIdempotencyKeys(autoKeys).build();
  }

  private VectorSchemaRoot batch(long id) {
    BigIntVector vector = new BigIntVector("id", allocator);
    vector.allocateNew(1);
    vector.set(0, id);
    vector.setValueCount(1);
    VectorSchemaRoot root = VectorSchemaRoot.of(vector);
    roots.add(root);
    return root;
  }

  @Test
  void resendsUnacknowledgedKeyedBatchesInOrderOnANewStream() throws Exception {
    server.failNextCall(2, CallStatus.UNAVAILABLE.withDescription("Ingest server is shutting down"));
    try (VerglasClient client = client(3, false); TableWriter writer = client.openWriter(TABLE)) {
      List<CompletableFuture<PutAck>> acks = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        acks.add(writer.write(batch(i), "k" + i));
      }
      writer.flush();

      assertThat(acks).allSatisfy(ack -> assertThat(ack).isCompleted());
      assertThat(writer.acks()).extracting(PutAck::batch).hasSize(5);
      List<List<String>> calls = server.keysPerCall();
      assertThat(calls).hasSize(2);
      assertThat(calls.get(0)).containsExactly("k0", "k1");
      assertThat(calls.get(1)).containsExactly("k2", "k3", "k4");
    }
  }

  @Test
  void automaticKeysMakeEveryBatchResendable() throws Exception {
    server.failNextCall(1, CallStatus.UNAVAILABLE.withDescription("gone"));
    try (VerglasClient client = client(3, true); TableWriter writer = client.openWriter(TABLE)) {
      for (int i = 0; i < 3; i++) {
        writer.write(batch(i));
      }
      writer.flush();
    }
    List<String> resent = server.keysPerCall().get(1);
    assertThat(resent).hasSize(2).allSatisfy(key -> assertThat(key).startsWith("sdk-"));
    assertThat(server.keysPerCall().get(0).get(0)).isNotIn(resent);
  }

  @Test
  void batchesWithoutKeysAreNotResent() {
    server.failNextCall(1, CallStatus.UNAVAILABLE.withDescription("gone"));
    try (VerglasClient client = client(3, false)) {
      TableWriter writer = client.openWriter(TABLE);
      CompletableFuture<PutAck> first = writer.write(batch(0));
      CompletableFuture<PutAck> second = writer.write(batch(1));

      assertThat(first.join().batch()).isZero();
      assertThatThrownBy(second::join).cause().isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
      assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
    }
    assertThat(server.keysPerCall()).hasSize(1);
  }

  @Test
  void givesUpAfterTheRetriesAndNeverRetriesRejections() {
    for (int i = 0; i < 3; i++) {
      server.failNextCall(0, CallStatus.UNAVAILABLE.withDescription("still down"));
    }
    try (VerglasClient client = client(2, false)) {
      TableWriter writer = client.openWriter(TABLE);
      CompletableFuture<PutAck> ack = writer.write(batch(0), "k0");
      assertThatThrownBy(ack::join).cause().isInstanceOfSatisfying(VerglasException.class, e -> {
        assertThat(e.code()).isEqualTo(FlightStatusCode.UNAVAILABLE);
        assertThat(e.description()).isEqualTo("still down");
      });
      assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
    }
    assertThat(server.keysPerCall()).hasSize(3);

    server.failNextCall(0, CallStatus.INVALID_ARGUMENT.withDescription("bad batch"));
    try (VerglasClient client = client(5, false)) {
      TableWriter writer = client.openWriter(TABLE);
      CompletableFuture<PutAck> ack = writer.write(batch(1), "k1");
      assertThatThrownBy(ack::join).cause().isInstanceOfSatisfying(VerglasException.class,
          e -> assertThat(e.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
      assertThatThrownBy(writer::close).isInstanceOf(VerglasException.class);
    }
    assertThat(server.keysPerCall()).hasSize(4);
  }
}
