package io.verglas.row;

import java.util.Arrays;

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
    ensure(value.length);
    System.arraycopy(value, 0, bytes, size, value.length);
    size += value.length;
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
