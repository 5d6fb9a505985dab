package io.verglas.ingest;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/**
 * DoPut below the Flight client: sends hand-made {@code FlightData} messages over plain gRPC,
 * so tests can send what no Arrow library would (garbage headers, truncated bodies, lengths
 * that lie).
 */
final class RawFlight implements AutoCloseable {
  /** One IPC message: its flatbuffer header and its body. */
  record IpcMessage(byte[] header, byte[] body) {}

  /** DoPut with messages as bytes, for what protobuf would not write (lying lengths). */
  private static final MethodDescriptor<byte[], byte[]> RAW_DO_PUT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(FlightServiceGrpc.getDoPutMethod().getFullMethodName())
          .setRequestMarshaller(new BytesMarshaller()).setResponseMarshaller(new BytesMarshaller())
          .build();

  private final ManagedChannel channel;
  private final Channel authenticated;
  private final FlightServiceGrpc.FlightServiceStub stub;

  RawFlight(int port, String token) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    authenticated = ClientInterceptors.intercept(channel,
        MetadataUtils.newAttachHeadersInterceptor(headers));
    stub = FlightServiceGrpc.newStub(authenticated);
  }

  /** Sends the messages, as they are, as one DoPut and returns how the server ended the call. */
  Status putBytes(List<byte[]> messages) throws Exception {
    CompletableFuture<Status> done = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = authenticated.newCall(RAW_DO_PUT, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        done.complete(status);
      }
    }, new Metadata());
    call.request(Integer.MAX_VALUE);
    for (byte[] message : messages) {
      call.sendMessage(message);
    }
    call.halfClose();
    return done.get(20, TimeUnit.SECONDS);
  }

  private static final class BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The schema message and the record batch message of one batch, uncompressed. */
  static List<IpcMessage> messages(VectorSchemaRoot root) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
      writer.start();
      writer.writeBatch();
    }
    ByteBuffer bytes = ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    List<IpcMessage> messages = new ArrayList<>();
    while (bytes.remaining() >= 8) {
      int continuation = bytes.getInt();
      int length = continuation == -1 ? bytes.getInt() : continuation;
      if (length == 0) {
        break;
      }
      byte[] header = new byte[length];
      bytes.get(header);
      Message message = Message.getRootAsMessage(ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN));
      byte[] body = new byte[(int) message.bodyLength()];
      bytes.get(body);
      messages.add(new IpcMessage(header, body));
    }
    return messages;
  }

  static Flight.FlightData data(List<String> path, byte[] header, byte[] body) {
    Flight.FlightData.Builder data = Flight.FlightData.newBuilder()
        .setDataHeader(ByteString.copyFrom(header)).setDataBody(ByteString.copyFrom(body));
    if (path != null) {
      data.setFlightDescriptor(Flight.FlightDescriptor.newBuilder()
          .setType(Flight.FlightDescriptor.DescriptorType.PATH).addAllPath(path));
    }
    return data.build();
  }

  /** Sends the messages as one DoPut and returns how the server ended the call. */
  Status put(List<Flight.FlightData> messages) throws Exception {
    CompletableFuture<Status> done = new CompletableFuture<>();
    StreamObserver<Flight.FlightData> requests = stub.doPut(new StreamObserver<>() {
      @Override
      public void onNext(Flight.PutResult value) {}

      @Override
      public void onError(Throwable t) {
        done.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        done.complete(Status.OK);
      }
    });
    try {
      for (Flight.FlightData message : messages) {
        requests.onNext(message);
      }
      requests.onCompleted();
    } catch (RuntimeException e) {
      // The server may end the call before it read everything.
    }
    return done.get(20, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
