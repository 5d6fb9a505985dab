package io.verglas.sdk;

import io.verglas.protocol.BatchMetadataParser;
import io.verglas.protocol.PutAck;
import io.verglas.protocol.PutAckParser;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A Flight server that acknowledges DoPut batches like an ingest server would (answering a key
 * it has seen with the first ack) and can be told to end the next call with a status after a
 * number of batches: enough to drive a writer through failures and retries.
 */
final class TestingFlightServer implements AutoCloseable {
  /** What the next calls do: fail after {@code acks} batches with {@code status}. */
  record Failure(int acks, CallStatus status) {}

  private final BufferAllocator allocator;
  private final FlightServer server;
  private final List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
  private final List<List<String>> keysPerCall = Collections.synchronizedList(new ArrayList<>());
  private final java.util.Map<String, PutAck> seen = new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicInteger calls = new AtomicInteger();

  TestingFlightServer(BufferAllocator allocator) throws Exception {
    this.allocator = allocator;
    this.server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0),
        new Producer()).build().start();
  }

  String uri() {
    return "grpc+tcp://127.0.0.1:" + server.getPort();
  }

  void failNextCall(int afterAcks, CallStatus status) {
    failures.add(new Failure(afterAcks, status));
  }

  /** The keys each call received, in order (null for batches without a key). */
  List<List<String>> keysPerCall() {
    synchronized (keysPerCall) {
      return keysPerCall.stream().map(keys -> (List<String>) new ArrayList<>(keys)).toList();
    }
  }

  @Override
  public void close() throws Exception {
    server.shutdown();
    server.awaitTermination();
  }

  private final class Producer extends NoOpFlightProducer {
    @Override
    public Runnable acceptPut(CallContext context, FlightStream stream,
        StreamListener<PutResult> ackStream) {
      return () -> {
        int call = calls.incrementAndGet();
        Failure failure = failures.isEmpty() ? null : failures.remove(0);
        List<String> keys = Collections.synchronizedList(new ArrayList<>());
        keysPerCall.add(keys);
        int batch = 0;
        while (stream.next()) {
          if (failure != null && batch == failure.acks()) {
            ackStream.onError(failure.status().toRuntimeException());
            return;
          }
          ArrowBuf metadata = stream.getLatestMetadata();
          String key = null;
          if (metadata != null) {
            byte[] bytes = new byte[(int) metadata.readableBytes()];
            metadata.getBytes(metadata.readerIndex(), bytes);
            key = BatchMetadataParser.fromBytes(bytes).idempotencyKey();
          }
          keys.add(key);
          PutAck ack = new PutAck("fake", call, batch, call * 1000L + batch,
              stream.getRoot().getRowCount());
          if (key != null) {
            PutAck first = seen.putIfAbsent(key, ack);
            ack = first != null ? first : ack;
          }
          byte[] json = PutAckParser.toBytes(ack);
          ArrowBuf buf = allocator.buffer(json.length);
          buf.writeBytes(json);
          try (PutResult result = PutResult.metadata(buf)) {
            ackStream.onNext(result);
          }
          batch++;
        }
        ackStream.onCompleted();
      };
    }
  }
}
