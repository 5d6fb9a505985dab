package io.verglas.ingest.flight;

import io.verglas.ingest.validation.InvalidBatchException;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.ingest.wal.BatchEncoder;
import io.verglas.ingest.wal.PooledZstdCodec;
import java.lang.reflect.Field;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.message.ArrowBodyCompression;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * Loads the batches of one DoPut stream into its root, decompressing batches a client sent
 * with Arrow IPC buffer compression (zstd or lz4_frame) and keeping their compressed buffers,
 * so that the WAL gets the client's compressed bytes ({@link BatchEncoder#passThrough}) while
 * validation reads the decompressed vectors.
 *
 * <p>Design. Flight 19's {@code FlightStream} loads every batch with a loader that knows no
 * codec: a compressed batch fails ("Please add arrow-compression module"), and a batch naming a
 * codec Arrow does not know is loaded as if uncompressed (its length prefixes read as data).
 * Flight has no hook for this, so {@link #install} replaces the stream's loader (a private
 * field, set once the schema arrived and never again) by this one; an Arrow upgrade that
 * renames the field fails every DoPut with a clear error, and the tests catch it first.
 *
 * <p>Refusals, before anything is decompressed: a codec other than zstd or lz4_frame, named; a
 * compression method other than per-buffer; a buffer without its 8-byte length, or announcing
 * a negative one; announced lengths that add up to more than the batch byte limit (a small
 * message must not inflate into gigabytes). A buffer that does not decompress to exactly the
 * length it announces is refused by its codec. The stream's handler then refuses the batch
 * whole, as any malformed batch.
 *
 * <p>Memory. A compressed batch is held twice while it is validated: its compressed buffers
 * (the received message) and the decompressed vectors, the latter bounded by the byte limit.
 * Not thread-safe: one stream's handler thread loads and takes.
 */
final class ReceivedBatchLoader extends VectorLoader {
  private static final Field FLIGHT_STREAM_LOADER = loaderField();
  private static final byte NO_COMPRESSION = CompressionUtil.CodecType.NO_COMPRESSION.getType();

  private final long maxBytes;
  private ArrowRecordBatch compressed;

  private ReceivedBatchLoader(VectorSchemaRoot root, long maxBytes) {
    super(root, new Codecs());
    this.maxBytes = maxBytes;
  }

  /** Makes {@code stream} load its batches through a new loader; call after its schema came. */
  static ReceivedBatchLoader install(FlightStream stream, long maxBytes) {
    ReceivedBatchLoader loader = new ReceivedBatchLoader(stream.getRoot(), maxBytes);
    if (FLIGHT_STREAM_LOADER == null) {
      throw new IllegalStateException("Cannot read compressed batches: this Arrow Flight "
          + "version's FlightStream has no 'loader' field");
    }
    try {
      FLIGHT_STREAM_LOADER.set(stream, loader);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Cannot read compressed batches: " + e.getMessage(), e);
    }
    return loader;
  }

  @Override
  public void load(ArrowRecordBatch batch) {
    discard();
    ArrowBodyCompression compression = batch.getBodyCompression();
    if (compression.getCodec() == NO_COMPRESSION) {
      super.load(batch);
      return;
    }
    check(batch);
    ArrowRecordBatch kept = new ArrowRecordBatch(batch.getLength(), batch.getNodes(),
        batch.getBuffers(), compression, batch.getVariadicBufferCounts(), true);
    try {
      super.load(batch);
    } catch (RuntimeException e) {
      kept.close();
      throw e;
    }
    compressed = kept;
  }

  /**
   * The compressed buffers of the batch loaded last, or null if it came uncompressed; the
   * caller closes them.
   */
  ArrowRecordBatch takeCompressed() {
    ArrowRecordBatch taken = compressed;
    compressed = null;
    return taken;
  }

  /** Releases the compressed buffers of a batch nobody took (the stream failed). */
  void discard() {
    if (compressed != null) {
      compressed.close();
      compressed = null;
    }
  }

  private void check(ArrowRecordBatch batch) {
    ArrowBodyCompression compression = batch.getBodyCompression();
    String codec = codecName(compression.getCodec());
    if (codec == null) {
      throw new IllegalArgumentException("compression codec " + compression.getCodec()
          + " is not supported (this server reads zstd (1) and lz4_frame (0))");
    }
    if (compression.getMethod() != BodyCompressionMethod.BUFFER) {
      throw new IllegalArgumentException("compression method " + compression.getMethod()
          + " is not supported (only per-buffer compression, BUFFER)");
    }
    long announced = 0;
    int index = 0;
    for (ArrowBuf buf : batch.getBuffers()) {
      announced += announcedLength(buf, index++, codec);
    }
    if (announced > maxBytes) {
      // The validator's words: the limit is on the buffers as they are once decompressed.
      throw new InvalidBatchException("1 problem: batch has " + announced + " bytes of Arrow "
          + "buffers but at most " + maxBytes + " are allowed; split it",
          RejectReason.BATCH_TOO_LARGE);
    }
  }

  private static long announcedLength(ArrowBuf buf, int index, String codec) {
    long size = buf.writerIndex();
    if (size == 0) {
      return 0;
    }
    if (size < CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
      throw new IllegalArgumentException(codec + " buffer " + index + " has " + size
          + " bytes, fewer than its 8-byte uncompressed length");
    }
    long length = buf.getLong(0);
    if (length == CompressionUtil.NO_COMPRESSION_LENGTH) {
      return size - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
    }
    if (length < 0) {
      throw new IllegalArgumentException(codec + " buffer " + index + " announces an "
          + "uncompressed length of " + length);
    }
    return length;
  }

  /** The IPC name of a codec id, or null for one this server does not read. */
  static String codecName(byte codec) {
    if (codec == CompressionUtil.CodecType.ZSTD.getType()) {
      return "zstd";
    }
    if (codec == CompressionUtil.CodecType.LZ4_FRAME.getType()) {
      return "lz4_frame";
    }
    return null;
  }

  private static Field loaderField() {
    try {
      Field field = FlightStream.class.getDeclaredField("loader");
      field.setAccessible(true);
      return field;
    } catch (NoSuchFieldException | RuntimeException e) {
      return null;
    }
  }

  /** zstd with pooled contexts, lz4_frame bounded; both refuse a wrong decompressed length. */
  private static final class Codecs implements CompressionCodec.Factory {
    private static final CompressionCodec ZSTD = new PooledZstdCodec(BatchEncoder.ZSTD_LEVEL);
    private static final CompressionCodec LZ4 = new Lz4FrameDecompressor();

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType type) {
      switch (type) {
        case ZSTD:
          return ZSTD;
        case LZ4_FRAME:
          return LZ4;
        default:
          throw new IllegalArgumentException("compression codec " + type + " is not supported");
      }
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType type, int level) {
      return createCodec(type);
    }
  }
}
