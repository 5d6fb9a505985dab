package io.verglas.sdk;

import java.lang.reflect.Field;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Chooses, batch by batch, whether one DoPut stream sends its next batch with Arrow IPC buffer
 * compression.
 *
 * <p>Design. Flight 19's client stream serializes each batch through an unloader it creates when
 * the stream starts, without a codec, and offers no option for one. {@link #before} sets that
 * unloader (a field of Flight's stream listener) to one with the codec, or back to the plain
 * one, before each {@code putNext}, from the batch's buffer size. The compressed buffers are
 * made on the writing thread, which is where the client's spare CPU is. An Arrow upgrade that
 * renames the field makes every compressing writer fail with a clear error (tests catch it).
 */
final class CompressingPut {
  private static final Field UNLOADER = unloaderField();

  private final BatchCompression compression;
  private final CompressionCodec codec;
  private VectorUnloader plain;
  private VectorUnloader compressed;
  private Object stream;

  CompressingPut(BatchCompression compression) {
    this.compression = compression;
    this.codec = compression.codec() == BatchCompression.Codec.NONE ? null
        : CommonsCompressionFactory.INSTANCE.createCodec(type(compression.codec()),
            BatchCompression.ZSTD_LEVEL);
  }

  /** Sets how {@code stream} serializes {@code root}'s current batch on its next putNext. */
  void before(FlightClient.ClientStreamListener stream, VectorSchemaRoot root) {
    if (codec == null) {
      return;
    }
    if (UNLOADER == null) {
      throw new VerglasException(FlightStatusCode.INTERNAL, "Cannot compress batches: this "
          + "Arrow Flight version's client stream has no 'unloader' field; use "
          + "BatchCompression.none()");
    }
    try {
      if (this.stream != stream) {
        this.stream = stream;
        plain = (VectorUnloader) UNLOADER.get(stream);
        compressed = new VectorUnloader(root, true, codec, true);
      }
      UNLOADER.set(stream, compression.compresses(bufferBytes(root)) ? compressed : plain);
    } catch (IllegalAccessException e) {
      throw new VerglasException(FlightStatusCode.INTERNAL, "Cannot compress batches: "
          + e.getMessage(), e);
    }
  }

  private static long bufferBytes(VectorSchemaRoot root) {
    long bytes = 0;
    for (FieldVector vector : root.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    return bytes;
  }

  private static CompressionUtil.CodecType type(BatchCompression.Codec codec) {
    return codec == BatchCompression.Codec.ZSTD ? CompressionUtil.CodecType.ZSTD
        : CompressionUtil.CodecType.LZ4_FRAME;
  }

  private static Field unloaderField() {
    try {
      Class<?> listener = Class.forName("org.apache.arrow.flight.OutboundStreamListenerImpl");
      Field field = listener.getDeclaredField("unloader");
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
