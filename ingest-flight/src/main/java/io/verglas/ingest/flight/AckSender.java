package io.verglas.ingest.flight;

import io.verglas.protocol.PutAck;
import io.verglas.protocol.PutAckParser;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the acknowledgements of one DoPut call, in batch order, as their WAL writes complete.
 *
 * <p>Design: acks are sent from the threads that complete the futures (the WAL flusher), not
 * from the thread reading the stream, because a client may wait for an ack before it sends the
 * next batch while the reader is blocked waiting for that batch. All calls on the gRPC
 * listener are serialized by this object's monitor, and an ack is sent only when every earlier
 * one was, so a later segment finishing first cannot reorder them. The first failed future ends
 * the call with its status; acks of the batches before it have been sent by then.
 */
final class AckSender {
  private static final Logger LOG = LoggerFactory.getLogger(AckSender.class);
  private final StreamListener<PutResult> listener;
  private final BufferAllocator allocator;
  private final ArrayDeque<CompletableFuture<PutAck>> queue = new ArrayDeque<>();
  private boolean ended;

  AckSender(StreamListener<PutResult> listener, BufferAllocator allocator) {
    this.listener = listener;
    this.allocator = allocator;
  }

  /** Whether the call has ended (failed, or the client is gone); reading should stop. */
  synchronized boolean ended() {
    return ended;
  }

  void track(CompletableFuture<PutAck> ack) {
    synchronized (this) {
      queue.add(ack);
    }
    ack.whenComplete((result, failure) -> drain());
  }

  /**
   * Waits until every tracked batch is acknowledged, then ends the call: completed when
   * {@code error} is null, else with {@code error}. A no-op if the call already ended.
   */
  synchronized void finish(FlightRuntimeException error) {
    try {
      while (!ended && !queue.isEmpty()) {
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      end(CallStatus.CANCELLED.withDescription("Ingest server is shutting down")
          .toRuntimeException());
      return;
    }
    if (!ended) {
      end(error);
    }
  }

  private synchronized void drain() {
    while (!ended && !queue.isEmpty() && queue.peek().isDone()) {
      PutAck ack;
      try {
        ack = queue.poll().join();
      } catch (RuntimeException e) {
        end(Statuses.toFlight(e));
        break;
      }
      send(ack);
    }
    notifyAll();
  }

  private void send(PutAck ack) {
    byte[] json = PutAckParser.toBytes(ack);
    try {
      ArrowBuf buf = allocator.buffer(json.length);
      buf.writeBytes(json);
      try (PutResult result = PutResult.metadata(buf)) {
        listener.onNext(result);
      }
    } catch (RuntimeException e) {
      // The client cancelled or went away: the batch is durable, only its ack is lost.
      LOG.debug("Cannot send ack {}: {}", ack, e.toString());
      ended = true;
      queue.clear();
    }
  }

  private void end(FlightRuntimeException error) {
    ended = true;
    queue.clear();
    try {
      if (error == null) {
        listener.onCompleted();
      } else {
        listener.onError(error);
      }
    } catch (RuntimeException e) {
      LOG.debug("Cannot end put call: {}", e.toString());
    }
    notifyAll();
  }
}
