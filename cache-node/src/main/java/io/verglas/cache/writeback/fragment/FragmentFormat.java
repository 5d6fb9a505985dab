package io.verglas.cache.writeback.fragment;

import io.verglas.cache.writeback.code.Geometry;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The byte format of one fragment file (version 1).
 *
 * <pre>
 *   offset size
 *   0      4    magic "VGFR"
 *   4      1    format version (1)
 *   5      1    flags (0)
 *   6      2    header length H, including the header CRC
 *   8      1    k, data fragments
 *   9      1    m, parity fragments
 *   10     1    this fragment's index, 0..k+m-1
 *   11     1    reserved (0)
 *   12     4    cell size
 *   16     8    body length
 *   24     2+b  bucket (UTF-8, u16 length prefix)
 *   ..     2+n  key
 *   ..     2+w  write id
 *   H-4    4    CRC32C of header bytes [0, H-4)
 *   H      ..   per stripe, in order: the fragment's cell, then CRC32C of the cell (4 bytes)
 * </pre>
 *
 * All integers are big-endian. The checksum trails each cell rather than the whole fragment so
 * that a reader verifies every cell before it reaches the decoder while streaming one stripe at
 * a time: a cell that fails is an erasure of that stripe only, and nothing unverified is ever
 * decoded. Readers reject versions they do not know.
 */
public final class FragmentFormat {
  public static final int VERSION = 1;
  public static final int CELL_CRC_BYTES = 4;
  private static final byte[] MAGIC = {'V', 'G', 'F', 'R'};
  private static final int FIXED = 24;
  static final int MAX_HEADER = FIXED + 3 * (2 + ObjectIdentity.MAX_NAME_BYTES) + 4;

  private FragmentFormat() {}

  static int headerLength(ObjectIdentity id) {
    return FIXED + 2 + utf8(id.bucket()).length + 2 + utf8(id.key()).length + 2 + utf8(id.writeId()).length + 4;
  }

  public static byte[] encodeHeader(FragmentHeader header) {
    ObjectIdentity id = header.identity();
    Geometry g = header.geometry();
    int length = headerLength(id);
    ByteBuffer b = ByteBuffer.allocate(length);
    b.put(MAGIC).put((byte) VERSION).put((byte) 0).putShort((short) length);
    b.put((byte) g.dataFragments()).put((byte) g.parityFragments()).put((byte) header.index()).put((byte) 0);
    b.putInt(g.cellBytes()).putLong(header.bodyLength());
    putString(b, id.bucket());
    putString(b, id.key());
    putString(b, id.writeId());
    b.putInt(crc(b.array(), 0, length - 4));
    return b.array();
  }

  /** The header length the first 8 bytes of a fragment file announce, after checking magic and version. */
  static int announcedHeaderLength(byte[] first8) throws CorruptFragmentException {
    if (!Arrays.equals(first8, 0, 4, MAGIC, 0, 4)) {
      throw new CorruptFragmentException("Cannot read fragment: bad magic");
    }
    int version = first8[4] & 0xFF;
    if (version != VERSION) {
      throw new CorruptFragmentException("Cannot read fragment: unknown version " + version);
    }
    int length = ((first8[6] & 0xFF) << 8) | (first8[7] & 0xFF);
    if (length < FIXED + 6 + 4 + 3 || length > MAX_HEADER) {
      throw new CorruptFragmentException("Cannot read fragment: bad header length " + length);
    }
    return length;
  }

  public static FragmentHeader decodeHeader(byte[] bytes) throws CorruptFragmentException {
    announcedHeaderLength(Arrays.copyOf(bytes, 8));
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int end = bytes.length - 4;
    if (b.getInt(end) != crc(bytes, 0, end)) {
      throw new CorruptFragmentException("Cannot read fragment: header checksum mismatch");
    }
    b.position(8);
    try {
      int k = b.get() & 0xFF;
      int m = b.get() & 0xFF;
      int index = b.get() & 0xFF;
      b.get();
      Geometry geometry = new Geometry(k, m, b.getInt());
      long bodyLength = b.getLong();
      ObjectIdentity id = new ObjectIdentity(getString(b, end), getString(b, end), getString(b, end));
      if (b.position() != end) {
        throw new CorruptFragmentException("Cannot read fragment: inconsistent header length");
      }
      return new FragmentHeader(id, geometry, index, bodyLength);
    } catch (IllegalArgumentException | BufferUnderflowException e) {
      throw new CorruptFragmentException("Cannot read fragment: " + e.getMessage());
    }
  }

  static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  static int crc(ByteBuffer bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes.duplicate());
    return (int) crc.getValue();
  }

  private static void putString(ByteBuffer b, String value) {
    byte[] bytes = utf8(value);
    b.putShort((short) bytes.length).put(bytes);
  }

  private static String getString(ByteBuffer b, int end) throws CorruptFragmentException {
    int length = b.getShort() & 0xFFFF;
    if (b.position() + length > end) {
      throw new CorruptFragmentException("Cannot read fragment: a name runs past the header");
    }
    String value = new String(b.array(), b.position(), length, StandardCharsets.UTF_8);
    b.position(b.position() + length);
    return value;
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
