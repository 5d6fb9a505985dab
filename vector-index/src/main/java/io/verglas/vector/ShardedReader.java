package io.verglas.vector;

import io.github.jbellis.jvector.disk.RandomAccessReader;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A JVector reader over a graph split into several buffers (Puffin blobs are capped at 2 GiB, a
 * Java buffer likewise). Big-endian like JVector's writer; a value that straddles two shards is
 * assembled byte by byte, everything else is read in place.
 */
final class ShardedReader implements RandomAccessReader {
  private final ByteBuffer[] shards;
  private final long[] starts;
  private final long length;
  private long position;

  ShardedReader(List<ByteBuffer> buffers) {
    this.shards = new ByteBuffer[buffers.size()];
    this.starts = new long[buffers.size()];
    long offset = 0;
    for (int i = 0; i < shards.length; i++) {
      shards[i] = buffers.get(i).duplicate();
      starts[i] = offset;
      offset += shards[i].remaining();
    }
    this.length = offset;
  }

  @Override
  public void seek(long offset) {
    this.position = offset;
  }

  @Override public long getPosition() { return position; }
  @Override public long length() { return length; }
  @Override public void close() {}

  @Override
  public int readInt() throws IOException {
    ByteBuffer in = inPlace(4);
    if (in != null) {
      position += 4;
      return in.getInt();
    }
    byte[] b = new byte[4];
    readFully(b);
    return ByteBuffer.wrap(b).getInt();
  }

  @Override
  public long readLong() throws IOException {
    ByteBuffer in = inPlace(8);
    if (in != null) {
      position += 8;
      return in.getLong();
    }
    byte[] b = new byte[8];
    readFully(b);
    return ByteBuffer.wrap(b).getLong();
  }

  @Override
  public float readFloat() throws IOException {
    return Float.intBitsToFloat(readInt());
  }

  @Override
  public void readFully(byte[] bytes) throws IOException {
    readFully(ByteBuffer.wrap(bytes));
  }

  @Override
  public void readFully(ByteBuffer dst) throws IOException {
    while (dst.hasRemaining()) {
      int shard = shardOf(position);
      ByteBuffer src = shards[shard].duplicate();
      int from = (int) (position - starts[shard]);
      int n = Math.min(dst.remaining(), src.limit() - from);
      src.position(from).limit(from + n);
      dst.put(src);
      position += n;
    }
  }

  @Override
  public void readFully(long[] values) throws IOException {
    for (int i = 0; i < values.length; i++) {
      values[i] = readLong();
    }
  }

  @Override
  public void read(int[] values, int offset, int count) throws IOException {
    if (count == 0) {
      return;
    }
    ByteBuffer in = inPlace(4L * count);
    if (in != null) {
      in.asIntBuffer().get(values, offset, count);
      position += 4L * count;
      return;
    }
    for (int i = 0; i < count; i++) {
      values[offset + i] = readInt();
    }
  }

  @Override
  public void read(float[] values, int offset, int count) throws IOException {
    if (count == 0) {
      return;
    }
    ByteBuffer in = inPlace(4L * count);
    if (in != null) {
      in.asFloatBuffer().get(values, offset, count);
      position += 4L * count;
      return;
    }
    for (int i = 0; i < count; i++) {
      values[offset + i] = readFloat();
    }
  }

  /**
   * A view positioned at the current offset when the next {@code n} bytes lie in one shard, null
   * when they straddle a boundary. The caller advances {@code position}.
   */
  private ByteBuffer inPlace(long n) throws IOException {
    if (position + n > length) {
      throw new EOFException("Cannot read " + n + " bytes at " + position + " of " + length);
    }
    int shard = shardOf(position);
    int from = (int) (position - starts[shard]);
    if (from + n > shards[shard].limit()) {
      return null;
    }
    ByteBuffer view = shards[shard].duplicate();
    view.position(from);
    return view;
  }

  private int shardOf(long offset) throws EOFException {
    if (offset < 0 || offset >= length) {
      throw new EOFException("Cannot read at " + offset + " of " + length);
    }
    int low = 0;
    int high = starts.length - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (starts[mid] <= offset) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }
}
