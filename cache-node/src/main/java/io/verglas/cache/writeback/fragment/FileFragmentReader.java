package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads one fragment file: its header, checked when opened, and any stripe's cell, checked
 * against its CRC32C before it is handed out. Positional reads: one reader may serve cells in
 * any order. Not thread-safe (one CRC buffer).
 */
final class FileFragmentReader implements FragmentReader {
  private final FileChannel channel;
  private final FragmentHeader header;
  private final ByteBuffer crc = ByteBuffer.allocate(FragmentFormat.CELL_CRC_BYTES);

  private FileFragmentReader(FileChannel channel, FragmentHeader header) {
    this.channel = channel;
    this.header = header;
  }

  /**
   * Opens the fragment file and checks its header and length.
   *
   * @throws CorruptFragmentException if either is wrong
   */
  static FragmentReader open(Path file) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      FragmentHeader header = readHeader(channel);
      if (channel.size() != header.fileLength()) {
        throw new CorruptFragmentException("Cannot read fragment " + file.getFileName() + ": length "
            + channel.size() + ", expected " + header.fileLength());
      }
      return new FileFragmentReader(channel, header);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  static FragmentHeader readHeader(FileChannel channel) throws IOException {
    ByteBuffer first = ByteBuffer.allocate(8);
    readFully(channel, first, 0);
    int length = FragmentFormat.announcedHeaderLength(first.array());
    ByteBuffer all = ByteBuffer.allocate(length);
    readFully(channel, all, 0);
    return FragmentFormat.decodeHeader(all.array());
  }

  @Override
  public FragmentHeader header() {
    return header;
  }

  @Override
  public void readCell(long stripe, ByteBuffer cell) throws IOException {
    int expected = FragmentReader.cellLength(header, stripe, cell);
    long offset = header.cellOffset(stripe);
    ByteBuffer target = cell.duplicate();
    readFully(channel, target, offset);
    crc.clear();
    readFully(channel, crc, offset + expected);
    if (crc.getInt(0) != FragmentFormat.crc(cell)) {
      throw new CorruptFragmentException("Cannot read cell " + stripe + " of fragment " + header.index()
          + " of " + header.identity() + ": checksum mismatch");
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer into, long offset) throws IOException {
    long end = offset + into.remaining();
    if (!LocalFiles.readFully(channel, into, offset)) {
      throw new CorruptFragmentException("Cannot read fragment: truncated before byte " + end);
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
