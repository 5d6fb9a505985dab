package io.verglas.cache.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The byte format of one block file of the NVMe tier (version 1).
 *
 * <pre>
 *   offset size
 *   0      4    magic "VGBK"
 *   4      1    format version (1)
 *   5      1    flags (0)
 *   6      2    header length H, including the header CRC
 *   8      4    block size
 *   12     8    block index
 *   20     4    data length N
 *   24     4    CRC32C of the data
 *   28     2+b  bucket (UTF-8, u16 length prefix)
 *   ..     2+k  key
 *   ..     2+e  ETag (quoted, as in BlockId)
 *   H-4    4    CRC32C of header bytes [0, H-4)
 *   H      N    data
 * </pre>
 *
 * All integers are big-endian. The header carries the block's whole identity, so the tier's
 * index can be rebuilt from the files alone, and a file found under the wrong name, with a
 * damaged header or a length other than H + N is discarded at recovery. The data CRC is checked
 * on every read; a block that fails it is dropped and fetched again. Readers reject versions
 * they do not know, so a future format can live beside this one under another directory.
 */
final class BlockFile {
  static final int VERSION = 1;
  private static final byte[] MAGIC = {'V', 'G', 'B', 'K'};
  private static final int FIXED = 28;
  private static final int MAX_HEADER = FIXED + 3 * (2 + 0xFFFF) + 4;

  private BlockFile() {}

  /** A parsed header: the identity, where the data starts and its expected CRC. */
  record Header(BlockId id, int headerLength, int dataLength, int dataCrc) {
    long fileLength() {
      return (long) headerLength + dataLength;
    }
  }

  /** Total file length for a block of {@code dataLength} bytes. */
  static int fileLength(BlockId id, int dataLength) {
    return headerLength(id) + dataLength;
  }

  static byte[] encodeHeader(BlockId id, byte[] data) {
    byte[] bucket = utf8(id.bucket(), "bucket");
    byte[] key = utf8(id.key(), "key");
    byte[] etag = utf8(id.etag(), "etag");
    int length = FIXED + 2 + bucket.length + 2 + key.length + 2 + etag.length + 4;
    ByteBuffer b = ByteBuffer.allocate(length);
    b.put(MAGIC).put((byte) VERSION).put((byte) 0).putShort((short) length);
    b.putInt(id.blockSize()).putLong(id.index()).putInt(data.length).putInt(crc(data, 0, data.length));
    putString(b, bucket);
    putString(b, key);
    putString(b, etag);
    b.putInt(crc(b.array(), 0, length - 4));
    return b.array();
  }

  /**
   * Reads and checks the header at the start of {@code channel}.
   *
   * @throws CorruptBlockException if the header is damaged or of an unknown version
   */
  static Header readHeader(FileChannel channel) throws IOException {
    ByteBuffer fixed = ByteBuffer.allocate(8);
    readFully(channel, fixed, 0);
    fixed.flip();
    byte[] magic = new byte[4];
    fixed.get(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new CorruptBlockException("Cannot read block file: bad magic");
    }
    int version = fixed.get() & 0xFF;
    if (version != VERSION) {
      throw new CorruptBlockException("Cannot read block file: unknown version " + version);
    }
    fixed.get();
    int headerLength = fixed.getShort() & 0xFFFF;
    if (headerLength < FIXED + 6 + 4 || headerLength > MAX_HEADER) {
      throw new CorruptBlockException("Cannot read block file: bad header length " + headerLength);
    }
    ByteBuffer header = ByteBuffer.allocate(headerLength);
    readFully(channel, header, 0);
    return decodeHeader(header.array());
  }

  static Header decodeHeader(byte[] bytes) throws CorruptBlockException {
    int headerLength = bytes.length;
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int storedCrc = b.getInt(headerLength - 4);
    if (storedCrc != crc(bytes, 0, headerLength - 4)) {
      throw new CorruptBlockException("Cannot read block file: header checksum mismatch");
    }
    b.position(8);
    int blockSize = b.getInt();
    long index = b.getLong();
    int dataLength = b.getInt();
    int dataCrc = b.getInt();
    try {
      String bucket = getString(b, headerLength - 4);
      String key = getString(b, headerLength - 4);
      String etag = getString(b, headerLength - 4);
      if (b.position() != headerLength - 4 || dataLength < 0 || dataLength > blockSize) {
        throw new CorruptBlockException("Cannot read block file: inconsistent header");
      }
      return new Header(new BlockId(bucket, key, etag, blockSize, index), headerLength, dataLength, dataCrc);
    } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
      throw new CorruptBlockException("Cannot read block file: " + e.getMessage());
    }
  }

  /** Reads the data of a file whose header is {@code header}, checking its CRC. */
  static byte[] readData(FileChannel channel, Header header) throws IOException {
    if (channel.size() != header.fileLength()) {
      throw new CorruptBlockException("Cannot read block file: length " + channel.size()
          + " instead of " + header.fileLength());
    }
    byte[] data = new byte[header.dataLength()];
    readFully(channel, ByteBuffer.wrap(data), header.headerLength());
    if (crc(data, 0, data.length) != header.dataCrc()) {
      throw new CorruptBlockException("Cannot read block " + header.id() + ": data checksum mismatch");
    }
    return data;
  }

  static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  private static int headerLength(BlockId id) {
    return FIXED + 2 + utf8(id.bucket(), "bucket").length + 2 + utf8(id.key(), "key").length
        + 2 + utf8(id.etag(), "etag").length + 4;
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
    long pos = position;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, pos);
      if (n < 0) {
        throw new CorruptBlockException("Cannot read block file: truncated at " + pos);
      }
      pos += n;
    }
  }

  private static byte[] utf8(String s, String what) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("Cannot store a block whose " + what + " is longer than "
          + 0xFFFF + " bytes: " + bytes.length);
    }
    return bytes;
  }

  private static void putString(ByteBuffer b, byte[] bytes) {
    b.putShort((short) bytes.length).put(bytes);
  }

  private static String getString(ByteBuffer b, int limit) throws CorruptBlockException {
    int length = b.getShort() & 0xFFFF;
    if (b.position() + length > limit) {
      throw new CorruptBlockException("Cannot read block file: string overruns the header");
    }
    byte[] bytes = new byte[length];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A block file that must not be served: damaged, truncated, or of an unknown format. */
  static final class CorruptBlockException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptBlockException(String message) {
      super(message);
    }
  }
}
