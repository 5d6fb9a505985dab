package io.verglas.events.publish;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * The byte form of one outbox entry: a line of UTF-8 text.
 *
 * <pre>
 *   version 1:  "1" SP crc SP json LF
 * </pre>
 * {@code crc} is the CRC-32C of the JSON's UTF-8 bytes as 8 lowercase hex digits; the JSON is
 * the event's CloudEvent on one line (a JSON writer escapes every control character inside
 * strings, so the only LF is the terminator). The checksum tells a complete line from one a
 * crash cut short or a disk garbled, so the reader can skip it instead of sending garbage.
 * The version leads the line so a later format can be told apart line by line.
 */
final class OutboxLine {
  static final int VERSION = 1;
  private static final byte[] PREFIX = "1 ".getBytes(StandardCharsets.US_ASCII);
  private static final int CRC_DIGITS = 8;
  /** Bytes before the JSON: the version, the checksum and two spaces. */
  static final int HEADER_BYTES = PREFIX.length + CRC_DIGITS + 1;

  private OutboxLine() {}

  /** The line for {@code json}, terminator included. */
  static byte[] encode(String json) {
    if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("Cannot encode outbox entry: it contains a line break");
    }
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    byte[] line = new byte[HEADER_BYTES + body.length + 1];
    System.arraycopy(PREFIX, 0, line, 0, PREFIX.length);
    byte[] crc = HexFormat.of().formatHex(toBytes(crc(body, 0, body.length)))
        .getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(crc, 0, line, PREFIX.length, CRC_DIGITS);
    line[PREFIX.length + CRC_DIGITS] = ' ';
    System.arraycopy(body, 0, line, HEADER_BYTES, body.length);
    line[line.length - 1] = '\n';
    return line;
  }

  /**
   * The JSON of a line given without its terminator; fails naming what is wrong when the line
   * is not a complete version-1 line.
   */
  static String decode(byte[] line, int length) {
    int space = indexOf(line, length, (byte) ' ');
    if (space <= 0) {
      throw new IllegalArgumentException("Corrupt outbox line: no version");
    }
    String version = new String(line, 0, space, StandardCharsets.US_ASCII);
    if (!version.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("Corrupt outbox line: no version");
    }
    if (!version.equals(Integer.toString(VERSION))) {
      throw new IllegalArgumentException("Unknown outbox line version: '" + abbreviate(version)
          + "' (this version reads " + VERSION + ")");
    }
    if (length < HEADER_BYTES || line[HEADER_BYTES - 1] != ' ') {
      throw new IllegalArgumentException("Corrupt outbox line: no checksum");
    }
    long expected = parseCrc(line);
    long actual = crc(line, HEADER_BYTES, length - HEADER_BYTES);
    if (expected != actual) {
      throw new IllegalArgumentException("Corrupt outbox line: checksum " + Long.toHexString(actual)
          + " does not match " + Long.toHexString(expected));
    }
    return new String(line, HEADER_BYTES, length - HEADER_BYTES, StandardCharsets.UTF_8);
  }

  private static long parseCrc(byte[] line) {
    String hex = new String(line, PREFIX.length, CRC_DIGITS, StandardCharsets.US_ASCII);
    try {
      return Long.parseLong(hex, 16);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Corrupt outbox line: checksum '" + hex + "' is not hex");
    }
  }

  private static long crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return crc.getValue();
  }

  private static byte[] toBytes(long crc) {
    return new byte[] {(byte) (crc >>> 24), (byte) (crc >>> 16), (byte) (crc >>> 8), (byte) crc};
  }

  private static int indexOf(byte[] bytes, int length, byte b) {
    for (int i = 0; i < Math.min(length, 16); i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static String abbreviate(String text) {
    return text.length() <= 8 ? text : text.substring(0, 8) + "...";
  }
}
