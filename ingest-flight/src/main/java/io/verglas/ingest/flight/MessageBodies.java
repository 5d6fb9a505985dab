package io.verglas.ingest.flight;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.ingest.validation.RejectReason;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.rounding.RoundingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses the Arrow buffer of a DoPut message that announces more bytes than the message has.
 *
 * <p>Why. Flight parses a message by reading the size its protobuf field announces, allocating
 * a buffer of that size, then reading into it; if the bytes run out, the buffer is never
 * released (Arrow Flight 19, {@code ArrowMessage.frame}). So a 14-byte message announcing a
 * 256 MiB body took 256 MiB of direct memory for good, well inside gRPC's message cap.
 *
 * <p>Design. gRPC knows a message's real size before Flight parses it. A tracer per call
 * records it ({@code inboundMessageRead}, on the transport thread) and puts itself in the call's
 * gRPC context, in which the parse runs; this class, the listener of Flight's allocator, refuses
 * there any buffer larger than the message (as the allocator rounds sizes) until the message is
 * {@link Tracer#delivered() delivered}. The parse then fails before anything is allocated, gRPC
 * ends the call (UNKNOWN "Application error processing RPC": a failed parse is reported no
 * other way), and the refusal is logged and counted as {@code malformed}. Between messages the
 * call's handler allocates freely (compression); it never does while a message is parsed,
 * because {@link PutFlow} asks for a message only once the handler is done with the one before.
 * A gRPC-compressed message has no known size before it is inflated: it may take up to the
 * message cap. A message that announces less than that and still more than it has is allocated
 * and, if Flight leaks it, the leak is no larger than the message the client sent.
 */
final class MessageBodies extends ServerStreamTracer.Factory implements AllocationListener {
  private static final Logger LOG = LoggerFactory.getLogger(MessageBodies.class);
  private static final Context.Key<Tracer> KEY = Context.key("verglas-inbound-message");
  private static final long NONE = -1;

  private final RoundingPolicy rounding;
  private final long messageCap;
  private final IngestMetrics metrics;

  MessageBodies(RoundingPolicy rounding, long messageCap, IngestMetrics metrics) {
    this.rounding = rounding;
    this.messageCap = messageCap;
    this.metrics = metrics;
  }

  /** The tracer of the call whose context this is, or null. */
  static Tracer current() {
    return KEY.get();
  }

  @Override
  public ServerStreamTracer newServerStreamTracer(String method, Metadata headers) {
    return new Tracer();
  }

  @Override
  public void onPreAllocation(long size) {
    Tracer call = KEY.get();
    long message = call == null ? NONE : call.parsing;
    if (message != NONE && size > rounding.getRoundedSize(message)) {
      metrics.rejected(RejectReason.MALFORMED);
      LOG.warn("Refused a buffer of {} bytes for a DoPut message of {} bytes: the message "
          + "announces more than it carries", size, message);
      throw new IllegalArgumentException("Cannot read DoPut message: it announces a buffer of "
          + size + " bytes but has " + message + " bytes");
    }
  }

  /** One call's message between gRPC reading it and Flight handing it on. */
  final class Tracer extends ServerStreamTracer {
    private volatile long parsing = NONE;

    @Override
    public Context filterContext(Context context) {
      return context.withValue(KEY, this);
    }

    @Override
    public void inboundMessageRead(int seqNo, long wireSize, long uncompressedSize) {
      parsing = uncompressedSize >= 0 ? uncompressedSize : messageCap;
    }

    /** Flight parsed the message: its handler's allocations are its own. */
    void delivered() {
      parsing = NONE;
    }
  }
}
