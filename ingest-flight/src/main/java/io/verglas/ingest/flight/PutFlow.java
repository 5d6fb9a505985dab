package io.verglas.ingest.flight;

import io.grpc.Context;
import io.grpc.ServerCall;
import java.util.function.Supplier;

/**
 * Asks gRPC for the messages of one DoPut call one at a time, when the call's reader is ready
 * for the next one, in place of Flight's read-ahead.
 *
 * <p>Design. gRPC reads a message it was asked for whole (up to the message cap) before anyone
 * sees it, and Flight's {@code FlightStream} asks for five messages ahead of its reader: one
 * client sending fast to a busy handler would make the server hold six batches. Here a call
 * holds at most one. {@link PutAdmission} drops Flight's requests and {@link #start() asks} for
 * the first message; after that a {@link #read} asks for a message only once the reader has
 * {@link #taken()} every message asked for, and {@link PutHandler} clears the batch it handed on
 * before it reads the next. A message not asked for stays with the client, held back by HTTP/2
 * flow control.
 *
 * <p>Counting. The first message carries the descriptor and the schema (every Arrow Flight
 * client sends them together); each later one is a batch (or batch metadata) that the reader
 * takes from {@code FlightStream.next()}. A message that Flight consumes without handing it on
 * (a second schema, a bare descriptor mid-stream) is never taken, so that call's next read
 * waits for a message never asked for: only a client breaking the protocol stalls, its own
 * call, holding nothing but its call slot. Dictionary batches would do the same, but a stream
 * with dictionary-encoded columns is refused before its first batch is read.
 *
 * <p>Threads. The reader calls {@link #read} and {@link #taken()} on its own thread; gRPC allows
 * {@code ServerCall.request} from any thread. A call that ended asks for nothing more.
 */
final class PutFlow {
  /** The flow of the DoPut call whose context this is. */
  static final Context.Key<PutFlow> KEY = Context.key("verglas-put-flow");
  /** For calls that came in without {@link PutAdmission}: Flight's own read-ahead applies. */
  private static final PutFlow FLIGHT_READ_AHEAD = new PutFlow(null);

  private final ServerCall<?, ?> call;
  private long asked;
  private long taken;
  private boolean ended;

  PutFlow(ServerCall<?, ?> call) {
    this.call = call;
  }

  /** The flow of the current DoPut call. */
  static PutFlow current() {
    PutFlow flow = KEY.get();
    return flow != null ? flow : FLIGHT_READ_AHEAD;
  }

  /** Asks for the call's first message. */
  void start() {
    askIfAllTaken();
  }

  /** Runs a blocking read of the stream, asking for the message it waits for if need be. */
  <T> T read(Supplier<T> read) {
    askIfAllTaken();
    return read.get();
  }

  /** The reader got a message asked for (the schema, a batch). */
  synchronized void taken() {
    taken++;
  }

  /** gRPC reported the call over (completed, or cancelled by the client or the transport). */
  synchronized void end() {
    ended = true;
  }

  synchronized boolean ended() {
    return ended;
  }

  private void askIfAllTaken() {
    if (call == null) {
      return;
    }
    synchronized (this) {
      if (ended || asked > taken) {
        return;
      }
      asked++;
    }
    call.request(1);
  }
}
