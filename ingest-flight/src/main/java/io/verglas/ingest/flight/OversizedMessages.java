package io.verglas.ingest.flight;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.ingest.validation.BatchLimits;
import io.verglas.ingest.validation.RejectReason;
import java.net.SocketAddress;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs and counts the calls gRPC ended because a message announced more bytes than the message
 * cap (as {@code batch_too_large} for DoPut, {@code other} for action bodies). gRPC refuses such
 * a message in its transport, before any interceptor or handler sees the call fail, and tells
 * the client only "gRPC message exceeds maximum size" (or, once acks were sent on the call,
 * resets the stream without a reason); the operator learns here which limit it was and which
 * client hit it.
 */
final class OversizedMessages extends ServerStreamTracer.Factory {
  private static final Logger LOG = LoggerFactory.getLogger(OversizedMessages.class);
  /** How gRPC's {@code MessageDeframer} words the refusal. */
  private static final String GRPC_REFUSAL = "gRPC message exceeds maximum size";
  private static final String DO_PUT = FlightServiceGrpc.getDoPutMethod().getFullMethodName();

  private final BatchLimits limits;
  private final IngestMetrics metrics;

  OversizedMessages(BatchLimits limits, IngestMetrics metrics) {
    this.limits = limits;
    this.metrics = metrics;
  }

  @Override
  public ServerStreamTracer newServerStreamTracer(String method, Metadata headers) {
    return new ServerStreamTracer() {
      private volatile SocketAddress client;

      @Override
      public void serverCallStarted(ServerCallInfo<?, ?> call) {
        client = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      }

      @Override
      public void streamClosed(Status status) {
        String description = status.getDescription();
        if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED && description != null
            && description.startsWith(GRPC_REFUSAL)) {
          refused(method, client, description);
        }
      }
    };
  }

  private void refused(String method, SocketAddress client, String description) {
    metrics.rejected(method.equals(DO_PUT) ? RejectReason.BATCH_TOO_LARGE : RejectReason.OTHER);
    LOG.warn("Refused a message of a {} call from {} unread: {} (maxBatchBytes {} + {} bytes "
        + "of IPC framing); the client must split its batches", method, client, description,
        limits.maxBytes(), BatchLimits.FRAMING_BYTES);
  }
}
