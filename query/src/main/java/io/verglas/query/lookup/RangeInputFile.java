package io.verglas.query.lookup;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.io.RangeReadable;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * An Iceberg input file as parquet-mr's: every read is one exact ranged read when the stream
 * can do that ({@link RangeReadable}, as S3FileIO's does), so a footer, an index or a page costs
 * one GET of its own bytes through the cache node, not an open-ended GET from a seek position.
 * Reads inside the file's {@link Tail} (its page indexes and bloom filters, kept in memory) cost
 * no GET at all.
 */
final class RangeInputFile implements InputFile {
  private final org.apache.iceberg.io.InputFile file;
  private final Tail tail;

  /** @param tail bytes of the file kept in memory, or null */
  RangeInputFile(org.apache.iceberg.io.InputFile file, Tail tail) {
    this.file = file;
    this.tail = tail;
  }

  /** The bytes of a file from {@code start} to its footer: where Parquet keeps its indexes. */
  record Tail(long start, byte[] bytes) {
    boolean holds(long pos, int len) {
      return pos >= start && pos + len <= start + bytes.length;
    }
  }

  /** Reads {@code len} bytes at {@code pos} with one ranged read. */
  byte[] read(long pos, int len) throws IOException {
    byte[] bytes = new byte[len];
    try (SeekableInputStream in = newStream()) {
      in.seek(pos);
      in.readFully(bytes);
    }
    return bytes;
  }

  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    return new Stream(file.newStream(), tail);
  }

  private static final class Stream extends SeekableInputStream {
    private final org.apache.iceberg.io.SeekableInputStream in;
    private final RangeReadable ranges;
    private final Tail tail;
    private long pos;

    Stream(org.apache.iceberg.io.SeekableInputStream in, Tail tail) {
      this.in = in;
      this.tail = tail;
      this.ranges = in instanceof RangeReadable readable ? readable : null;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = newPos;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      readFully(one, 0, 1);
      return one[0] & 0xff;
    }

    @Override
    public int read(byte[] bytes, int off, int len) throws IOException {
      readFully(bytes, off, len);
      return len;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int off, int len) throws IOException {
      if (len == 0) {
        return;
      }
      if (tail != null && tail.holds(pos, len)) {
        System.arraycopy(tail.bytes(), Math.toIntExact(pos - tail.start()), bytes, off, len);
      } else if (ranges != null) {
        ranges.readFully(pos, bytes, off, len);
      } else {
        in.seek(pos);
        int done = 0;
        while (done < len) {
          int n = in.read(bytes, off + done, len - done);
          if (n < 0) {
            throw new EOFException("Cannot read " + len + " bytes at " + pos + ": the file ends");
          }
          done += n;
        }
      }
      pos += len;
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      readFully(buf);
      return len;
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      byte[] bytes = new byte[buf.remaining()];
      readFully(bytes, 0, bytes.length);
      buf.put(bytes);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
