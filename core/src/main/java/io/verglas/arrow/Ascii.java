package io.verglas.arrow;

import org.apache.arrow.memory.ArrowBuf;

/**
 * Whether a byte range of an Arrow buffer is ASCII, read eight bytes at a time. ASCII bytes are
 * valid UTF-8 as they are, and their Java encoding is the same bytes: ingest clears string cells
 * with it and the row encoder copies them without decoding.
 */
public final class Ascii {
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Ascii() {}

  /** Whether every byte of {@code data} from {@code start} (inclusive) to {@code end} is ASCII. */
  public static boolean isAscii(ArrowBuf data, long start, long end) {
    long at = start;
    for (; at + Long.BYTES <= end; at += Long.BYTES) {
      if ((data.getLong(at) & HIGH_BITS) != 0) {
        return false;
      }
    }
    for (; at < end; at++) {
      if (data.getByte(at) < 0) {
        return false;
      }
    }
    return true;
  }
}
