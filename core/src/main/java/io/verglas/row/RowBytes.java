package io.verglas.row;

import io.verglas.arrow.Ascii;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/**
 * The growable big-endian buffer {@link RowCodec} writes into: the layout of
 * {@code DataOutputStream}, without its synchronized per-byte writes through a
 * {@code ByteArrayOutputStream} (every row of the materializer is encoded once).
 */
final class RowBytes {
  private byte[] bytes;
  private int size;

  RowBytes(int capacity) {
    this.bytes = new byte[capacity];
  }

  void writeByte(int value) {
    ensure(1);
    bytes[size++] = (byte) value;
  }

  void writeInt(int value) {
    ensure(4);
    bytes[size] = (byte) (value >>> 24);
    bytes[size + 1] = (byte) (value >>> 16);
    bytes[size + 2] = (byte) (value >>> 8);
    bytes[size + 3] = (byte) value;
    size += 4;
  }

  void writeLong(long value) {
    writeInt((int) (value >>> 32));
    writeInt((int) value);
  }

  /** The length as an int, then the bytes. */
  void writeSized(byte[] value) {
    writeInt(value.length);
    writeBytes(value, 0, value.length);
  }

  /** {@code length} bytes of {@code value} from {@code offset}, as they are. */
  void writeBytes(byte[] value, int offset, int length) {
    ensure(length);
    System.arraycopy(value, offset, bytes, size, length);
    size += length;
  }

  /**
   * A string given as {@code length} bytes of {@code data} from {@code start}, written as
   * {@link #writeSized} writes its Java UTF-8 encoding: ASCII is copied as it is, anything else
   * goes through a {@code String} so that malformed UTF-8 turns into the same replacement
   * characters it would have become there.
   */
  void writeString(ArrowBuf data, long start, int length) {
    if (!Ascii.isAscii(data, start, start + length)) {
      byte[] raw = new byte[length];
      data.getBytes(start, raw);
      writeSized(new String(raw, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
      return;
    }
    ensure(4 + length);
    writeInt(length);
    data.getBytes(start, bytes, size, length);
    size += length;
  }

  /** Empties the buffer for the next row, keeping its capacity. */
  void clear() {
    size = 0;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }
}
