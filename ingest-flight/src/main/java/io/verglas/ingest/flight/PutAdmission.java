package io.verglas.ingest.flight;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.ingest.validation.BatchLimits;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.protocol.IngestProtocol;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Bounds what DoPut calls bring into the server: how many run at once, in total and per client
 * connection ({@link PutLimits}), how large one message may be ({@link BatchLimits}), and how
 * many messages a call holds (one, see {@link PutFlow}).
 *
 * <p>Design. A gRPC interceptor, installed through Flight's hook into its gRPC server builder
 * because Flight's own API shows neither the client's connection nor gRPC's flow control. gRPC
 * runs the interceptors added last first, and Flight adds its middleware (the bearer token
 * check) after this hook runs, so only authenticated calls are counted. A call over a bound is
 * closed with RESOURCE_EXHAUSTED before Flight sees it; an admitted call gets a {@link PutFlow}
 * in its gRPC context (Flight runs {@code acceptPut} in that context) and Flight's requests for
 * messages are dropped in favour of the flow's. A connection is the client's socket address: a
 * client's calls share one connection (one gRPC channel), and a client that opens more
 * connections still counts against the total.
 *
 * <p>Memory. The message cap is gRPC's {@code maxInboundMessageSize}: gRPC checks a message's
 * length prefix before it reads the body, so a batch over the cap is refused without being
 * buffered ({@link OversizedMessages} logs and counts it); within a message, a body announcing
 * more than the message has is refused by Flight's allocator ({@link MessageBodies}). With one
 * message per call, what the puts hold of received batches is bounded by
 * {@code maxConcurrentPuts} messages of the cap (twice that for a moment, see
 * {@link PutLimits}).
 *
 * <p>Slots are released when gRPC reports the call over (completed or cancelled, exactly one of
 * the two, whoever ended it), so a client that vanishes frees its slot too.
 */
public final class PutAdmission implements ServerInterceptor, AutoCloseable {
  /** Flight's key for a {@code Consumer<NettyServerBuilder>} applied to its gRPC builder. */
  private static final String GRPC_BUILDER_HOOK = "grpc.builderConsumer";
  private static final String DO_PUT = FlightServiceGrpc.getDoPutMethod().getFullMethodName();

  private final PutLimits limits;
  private final BatchLimits batchLimits;
  private final IngestMetrics metrics;
  private final MessageBodies bodies;
  private final BufferAllocator flightAllocator;
  private final Map<SocketAddress, Integer> perConnection = new HashMap<>();
  private int inProgress;

  /** An admission whose {@link #allocator()} is a child of {@code allocator}. */
  public PutAdmission(PutLimits limits, BatchLimits batchLimits, IngestMetrics metrics,
      BufferAllocator allocator) {
    this.limits = limits;
    this.batchLimits = batchLimits;
    this.metrics = metrics;
    this.bodies = new MessageBodies(allocator.getRoundingPolicy(), batchLimits.maxMessageBytes(),
        metrics);
    this.flightAllocator = allocator.newChildAllocator("verglas-flight", bodies, 0,
        Long.MAX_VALUE);
    metrics.putsInProgress(this::inProgress);
  }

  /**
   * The allocator to give the Flight server: it refuses a buffer that a message announces
   * beyond its real size (see {@link MessageBodies}).
   */
  public BufferAllocator allocator() {
    return flightAllocator;
  }

  /** Sets the message cap and this admission on a Flight server built on {@link #allocator()}. */
  public FlightServer.Builder installOn(FlightServer.Builder builder) {
    Consumer<NettyServerBuilder> grpc = netty -> netty.intercept(this)
        .addStreamTracerFactory(new OversizedMessages(batchLimits, metrics))
        .addStreamTracerFactory(bodies);
    return builder.maxInboundMessageSize(batchLimits.maxMessageBytes())
        .transportHint(GRPC_BUILDER_HOOK, grpc);
  }

  /**
   * Closes {@link #allocator()}, once the Flight server stopped.
   *
   * @throws IllegalStateException if Flight left buffers of ended calls unreleased
   */
  @Override
  public void close() {
    flightAllocator.close();
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call,
      Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    if (!DO_PUT.equals(call.getMethodDescriptor().getFullMethodName())) {
      return next.startCall(call, headers);
    }
    SocketAddress connection = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    String refusal = admit(connection);
    if (refusal != null) {
      metrics.rejected(RejectReason.TOO_MANY_PUTS);
      call.close(Status.RESOURCE_EXHAUSTED.withDescription(refusal), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    PutFlow flow = new PutFlow(call);
    MessageBodies.Tracer messages = MessageBodies.current();
    ServerCall.Listener<ReqT> listener;
    try {
      listener = Contexts.interceptCall(Context.current().withValue(PutFlow.KEY, flow),
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void request(int messages) {
              // Flight's read-ahead; the flow asks instead.
            }

            @Override
            public void close(Status status, Metadata trailers) {
              // gRPC ended a call whose message it refused (over the cap) by writing the
              // status itself; trailers written again on that half-closed stream make Netty
              // end the whole connection (GOAWAY), failing the client's other calls.
              if (!flow.ended()) {
                super.close(status, trailers);
              }
            }
          }, headers, next);
    } catch (RuntimeException e) {
      release(connection);
      throw e;
    }
    flow.start();
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(ReqT message) {
        if (messages != null) {
          messages.delivered();
        }
        super.onMessage(message);
      }

      @Override
      public void onComplete() {
        try {
          super.onComplete();
        } finally {
          ended(flow, connection);
        }
      }

      @Override
      public void onCancel() {
        // Before Flight hears of it: its handler then ends the call at once (see close above).
        flow.end();
        try {
          super.onCancel();
        } finally {
          ended(flow, connection);
        }
      }
    };
  }

  /** Takes a slot for a call on {@code connection}; returns why not, or null when admitted. */
  private synchronized String admit(SocketAddress connection) {
    if (inProgress >= limits.maxConcurrentPuts()) {
      return IngestProtocol.REFUSED_TOO_MANY_PUTS + inProgress + " puts in progress (maxConcurrentPuts); "
          + "retry when one has ended";
    }
    int onConnection = perConnection.getOrDefault(connection, 0);
    if (onConnection >= limits.maxConcurrentPutsPerConnection()) {
      return IngestProtocol.REFUSED_TOO_MANY_PUTS + onConnection + " puts in progress on this connection "
          + "from " + connection + " (maxConcurrentPutsPerConnection); retry when one has ended";
    }
    inProgress++;
    perConnection.put(connection, onConnection + 1);
    return null;
  }

  private void ended(PutFlow flow, SocketAddress connection) {
    flow.end();
    release(connection);
  }

  private synchronized void release(SocketAddress connection) {
    inProgress--;
    perConnection.computeIfPresent(connection, (key, count) -> count == 1 ? null : count - 1);
  }

  private synchronized long inProgress() {
    return inProgress;
  }
}
