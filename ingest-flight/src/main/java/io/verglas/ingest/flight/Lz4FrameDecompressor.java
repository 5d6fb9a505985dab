package io.verglas.ingest.flight;

import java.io.IOException;
import java.io.InputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorInputStream;

/**
 * Decompresses the LZ4-frame buffers of a received batch into exactly the length each buffer
 * announces.
 *
 * <p>Design: Arrow's own LZ4 codec inflates a buffer into a growing heap array before it looks
 * at the announced length, so a few kilobytes of a client's frame could take gigabytes of heap.
 * Here the output buffer has the announced length (which the caller checked against the batch
 * byte limit) and a frame that holds more or fewer bytes is refused. Decompression only: the
 * server never writes LZ4 itself.
 */
final class Lz4FrameDecompressor extends AbstractCompressionCodec {
  private static final int CHUNK = 64 << 10;

  @Override
  protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
    long length = readUncompressedLength(compressed);
    ArrowBuf out = allocator.buffer(length);
    try (InputStream in = new FramedLZ4CompressorInputStream(new BufInputStream(compressed))) {
      byte[] chunk = new byte[(int) Math.min(CHUNK, length + 1)];
      long written = 0;
      int n;
      while ((n = in.read(chunk)) != -1) {
        if (written + n > length) {
          throw new IllegalArgumentException("Cannot decompress lz4_frame buffer: it holds more "
              + "than the " + length + " bytes it announces");
        }
        out.setBytes(written, chunk, 0, n);
        written += n;
      }
      if (written != length) {
        throw new IllegalArgumentException("Cannot decompress lz4_frame buffer: it holds "
            + written + " bytes but announces " + length);
      }
      out.writerIndex(length);
      return out;
    } catch (IOException | RuntimeException e) {
      out.close();
      if (e instanceof IllegalArgumentException bad) {
        throw bad;
      }
      throw new IllegalArgumentException("Cannot decompress lz4_frame buffer: " + e.getMessage(), e);
    }
  }

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
    throw new UnsupportedOperationException("Cannot compress: the server writes zstd only");
  }

  @Override
  public CompressionUtil.CodecType getCodecType() {
    return CompressionUtil.CodecType.LZ4_FRAME;
  }

  /** The compressed bytes of a buffer, after its 8-byte length prefix, read in place. */
  private static final class BufInputStream extends InputStream {
    private final ArrowBuf buf;
    private long at = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;

    BufInputStream(ArrowBuf buf) {
      this.buf = buf;
    }

    @Override
    public int read() {
      return at < buf.writerIndex() ? buf.getByte(at++) & 0xFF : -1;
    }

    @Override
    public int read(byte[] into, int offset, int length) {
      long left = buf.writerIndex() - at;
      if (left <= 0) {
        return -1;
      }
      int n = (int) Math.min(left, length);
      buf.getBytes(at, into, offset, n);
      at += n;
      return n;
    }
  }
}
