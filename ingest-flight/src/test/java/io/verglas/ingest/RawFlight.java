package io.verglas.ingest;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
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
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowBodyCompression;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

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
    return split(out.toByteArray());
  }

  /**
   * The schema message and the record batch message of one batch, its buffers compressed with
   * {@code codec} and the batch labelled with codec id {@code label} (which may name a codec
   * that does not exist).
   */
  static List<IpcMessage> compressedMessages(VectorSchemaRoot root,
      CompressionUtil.CodecType codec, byte label) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WriteChannel channel = new WriteChannel(Channels.newChannel(out));
    MessageSerializer.serialize(channel, root.getSchema());
    // Level 1, as the SDK compresses.
    CompressionCodec compressor = CommonsCompressionFactory.INSTANCE.createCodec(codec, 1);
    try (ArrowRecordBatch compressed = new VectorUnloader(root, true, compressor, true)
            .getRecordBatch();
        ArrowRecordBatch labelled = new ArrowRecordBatch(compressed.getLength(),
            compressed.getNodes(), compressed.getBuffers(),
            new ArrowBodyCompression(label, BodyCompressionMethod.BUFFER), true)) {
      MessageSerializer.serialize(channel, labelled);
    }
    return split(out.toByteArray());
  }

  /** Where each buffer of a record batch message sits in its body: {offset, length} pairs. */
  static long[][] bufferLayout(IpcMessage records) {
    Message message = Message.getRootAsMessage(
        ByteBuffer.wrap(records.header()).order(ByteOrder.LITTLE_ENDIAN));
    RecordBatch batch = (RecordBatch) message.header(new RecordBatch());
    long[][] layout = new long[batch.buffersLength()][];
    for (int i = 0; i < layout.length; i++) {
      layout[i] = new long[] {batch.buffers(i).offset(), batch.buffers(i).length()};
    }
    return layout;
  }

  static List<IpcMessage> split(byte[] stream) {
    ByteBuffer bytes = ByteBuffer.wrap(stream).order(ByteOrder.LITTLE_ENDIAN);
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
