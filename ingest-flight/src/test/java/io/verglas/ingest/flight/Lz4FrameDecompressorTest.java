package io.verglas.ingest.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A client's lz4_frame buffer decompresses to exactly the length it announces, or is refused. */
class Lz4FrameDecompressorTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final Lz4FrameDecompressor codec = new Lz4FrameDecompressor();
  private final byte[] data = data();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void decompressesToTheAnnouncedLength() throws IOException {
    try (ArrowBuf out = codec.decompress(allocator, buffer(data.length, frame(data)))) {
      byte[] read = new byte[data.length];
      out.getBytes(0, read);
      assertThat(read).isEqualTo(data);
    }
  }

  @Test
  void refusesAFrameHoldingMoreThanItAnnounces() throws IOException {
    ArrowBuf compressed = buffer(10, frame(data));
    assertThatThrownBy(() -> codec.decompress(allocator, compressed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot decompress lz4_frame buffer: it holds more than the 10 bytes it "
            + "announces");
    compressed.close();
  }

  @Test
  void refusesAFrameHoldingLessThanItAnnounces() throws IOException {
    ArrowBuf compressed = buffer(data.length + 1, frame(data));
    assertThatThrownBy(() -> codec.decompress(allocator, compressed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot decompress lz4_frame buffer: it holds " + data.length
            + " bytes but announces " + (data.length + 1));
    compressed.close();
  }

  @Test
  void refusesWhatIsNotAFrame() {
    byte[] garbage = new byte[64];
    Arrays.fill(garbage, (byte) 7);
    ArrowBuf compressed = buffer(data.length, garbage);
    assertThatThrownBy(() -> codec.decompress(allocator, compressed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot decompress lz4_frame buffer: ");
    compressed.close();
  }

  private ArrowBuf buffer(long announced, byte[] frame) {
    ArrowBuf buf = allocator.buffer(8 + frame.length);
    buf.setLong(0, announced);
    buf.setBytes(8, frame);
    buf.writerIndex(8 + frame.length);
    return buf;
  }

  private static byte[] frame(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FramedLZ4CompressorOutputStream lz4 = new FramedLZ4CompressorOutputStream(out)) {
      lz4.write(data);
    }
    return out.toByteArray();
  }

  private static byte[] data() {
    byte[] data = new byte[100_000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i % 251);
    }
    return data;
  }
}
