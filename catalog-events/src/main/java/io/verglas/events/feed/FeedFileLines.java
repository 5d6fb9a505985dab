package io.verglas.events.feed;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the lines of a feed file with bounded memory: at most one line of up to
 * {@code maxLineBytes} is held; a longer line is passed over without being buffered (only its
 * offset and length are reported), so a file of any size and any content can be recovered. A
 * last line without its newline (a write that a crash cut short) is reported as not
 * terminated, with its offset, so the caller can cut it off the file.
 */
final class FeedFileLines {
  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] buffer = new byte[64 * 1024];
  private int position;
  private int limit;
  private long offset;

  FeedFileLines(InputStream in, int maxLineBytes) {
    this.in = in;
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * One line, without its newline.
   *
   * @param offset where the line starts in the file
   * @param length its length in bytes, without the newline
   * @param bytes its bytes, or null when it is longer than the limit
   * @param terminated whether a newline ends it (false only for a torn last line)
   */
  record Line(long offset, long length, byte[] bytes, boolean terminated) {
    boolean oversized() {
      return bytes == null;
    }
  }

  /** The next line, or null at the end of the file. */
  Line next() throws IOException {
    long start = offset;
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    long length = 0;
    while (true) {
      if (position == limit && !fill()) {
        return length == 0 ? null : new Line(start, length, bytes(line, length), false);
      }
      int newline = indexOfNewline();
      int end = newline < 0 ? limit : newline;
      int count = end - position;
      length += count;
      if (length <= maxLineBytes) {
        line.write(buffer, position, count);
      }
      offset += count;
      position = end;
      if (newline >= 0) {
        position++;
        offset++;
        return new Line(start, length, bytes(line, length), true);
      }
    }
  }

  private byte[] bytes(ByteArrayOutputStream line, long length) {
    return length <= maxLineBytes ? line.toByteArray() : null;
  }

  private boolean fill() throws IOException {
    int read = in.read(buffer);
    position = 0;
    limit = Math.max(read, 0);
    return read > 0;
  }

  private int indexOfNewline() {
    for (int i = position; i < limit; i++) {
      if (buffer[i] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
