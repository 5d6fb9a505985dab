package io.verglas.arrow;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;

/** Arrow IPC stream bytes with zstd-compressed buffers: how batches sit in WAL segments. */
public final class ArrowIpc {
  private ArrowIpc() {}

  /** Serializes the root's current batch as one IPC stream (schema + one record batch). */
  public static byte[] encode(VectorSchemaRoot root) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(estimate(root));
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes),
        IpcOption.DEFAULT, CommonsCompressionFactory.INSTANCE, CompressionUtil.CodecType.ZSTD)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode Arrow batch", e);
    }
    return bytes.toByteArray();
  }

  /**
   * Opens IPC bytes for reading; the caller iterates {@code loadNextBatch()} and closes the
   * reader, which releases the vectors.
   */
  public static ArrowStreamReader open(byte[] ipc, BufferAllocator allocator) {
    return new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator,
        CommonsCompressionFactory.INSTANCE);
  }

  private static int estimate(VectorSchemaRoot root) {
    long size = root.getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum();
    return (int) Math.min(Integer.MAX_VALUE - 64, size / 2 + 1024);
  }
}
