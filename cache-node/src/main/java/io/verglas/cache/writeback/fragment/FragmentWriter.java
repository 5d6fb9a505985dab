package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * Writes one fragment in {@link FragmentFormat} to a channel: the header, then each stripe's
 * cell followed by its CRC32C, computed as the cell streams past. Checks that cells come with
 * the lengths the header implies and that none is missing at {@link #finish}.
 */
final class FragmentWriter {
  private final FileChannel channel;
  private final FragmentHeader header;
  private final long stripes;
  private final ByteBuffer crc = ByteBuffer.allocate(FragmentFormat.CELL_CRC_BYTES);
  private long written;

  FragmentWriter(FileChannel channel, FragmentHeader header) throws IOException {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.header = Objects.requireNonNull(header, "header");
    this.stripes = header.geometry().stripes(header.bodyLength());
    writeFully(ByteBuffer.wrap(FragmentFormat.encodeHeader(header)));
  }

  /** Appends the next stripe's cell (its remaining bytes; the buffer's position is left alone). */
  void writeCell(ByteBuffer cell) throws IOException {
    if (written == stripes) {
      throw new IllegalStateException("Cannot write cell " + written + " of fragment " + header.index()
          + ": the body has " + stripes + " stripes");
    }
    int expected = header.geometry().cellLength(header.bodyLength(), written);
    if (cell.remaining() != expected) {
      throw new IllegalArgumentException("Cannot write cell " + written + " of fragment " + header.index()
          + ": " + cell.remaining() + " bytes, expected " + expected);
    }
    writeFully(cell.duplicate());
    crc.clear();
    crc.putInt(FragmentFormat.crc(cell)).flip();
    writeFully(crc);
    written++;
  }

  /** Checks that every stripe's cell was written. */
  void finish() {
    if (written != stripes) {
      throw new IllegalStateException("Cannot finish fragment " + header.index() + ": " + written + " of "
          + stripes + " cells written");
    }
  }

  private void writeFully(ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }
}
