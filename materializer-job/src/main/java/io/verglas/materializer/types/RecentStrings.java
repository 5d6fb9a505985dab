package io.verglas.materializer.types;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Reads length-prefixed UTF-8 strings and hands out the same String instance again when the
 * bytes repeat one of the last few read: for fields whose values recur from record to record
 * (table ids, stream ids, data file paths), a byte comparison replaces two allocations and a
 * decode, and the instance keeps its cached hash for the maps the caller puts it in. Writing,
 * it keeps the encoding of the last few String instances written: the writer of such a field
 * hands the same instance again and again (every row of a segment shares its table id), and an
 * identity comparison replaces an encode and an allocation.
 *
 * <p>Not thread-safe: a serializer that holds one is stateful and duplicates it per thread.
 */
public final class RecentStrings {
  private final byte[][] bytes;
  private final String[] values;
  private byte[] scratch = new byte[64];
  private final String[] written;
  private final byte[][] writtenBytes;
  private int nextWritten;

  /** Remembers the last {@code capacity} distinct strings, most recently read first. */
  public RecentStrings(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.bytes = new byte[capacity][];
    this.values = new String[capacity];
    this.written = new String[capacity];
    this.writtenBytes = new byte[capacity][];
  }

  /** Writes {@code value} (may be null) in the form {@link #read} reads. */
  public static void writeOnce(String value, DataOutputView out) throws IOException {
    if (value == null) {
      out.writeInt(-1);
      return;
    }
    writeEncoded(value.getBytes(StandardCharsets.UTF_8), out);
  }

  /**
   * Writes {@code value} (may be null) as {@link #writeOnce} does, reusing the encoding if the
   * same instance was among the last few written.
   */
  public void write(String value, DataOutputView out) throws IOException {
    if (value == null) {
      out.writeInt(-1);
      return;
    }
    writeEncoded(utf8(value), out);
  }

  /**
   * The UTF-8 bytes of {@code value}, not copied when the same instance was among the last few
   * encoded (the caller must not change them).
   */
  public byte[] utf8(String value) {
    for (int i = 0; i < written.length; i++) {
      if (written[i] == value) {
        return writtenBytes[i];
      }
    }
    byte[] encoded = value.getBytes(StandardCharsets.UTF_8);
    written[nextWritten] = value;
    writtenBytes[nextWritten] = encoded;
    nextWritten = (nextWritten + 1) % written.length;
    return encoded;
  }

  private static void writeEncoded(byte[] encoded, DataOutputView out) throws IOException {
    out.writeInt(encoded.length);
    out.write(encoded);
  }

  /** Reads a string written by {@link #write}. */
  public String read(DataInputView in) throws IOException {
    int length = in.readInt();
    return length < 0 ? null : read(in, length);
  }

  /** Reads a string of {@code length} UTF-8 bytes whose length the caller read. */
  public String read(DataInputView in, int length) throws IOException {
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    in.readFully(scratch, 0, length);
    for (int i = 0; i < values.length && values[i] != null; i++) {
      if (Arrays.equals(scratch, 0, length, bytes[i], 0, bytes[i].length)) {
        return moveToFront(i);
      }
    }
    System.arraycopy(bytes, 0, bytes, 1, bytes.length - 1);
    System.arraycopy(values, 0, values, 1, values.length - 1);
    bytes[0] = Arrays.copyOf(scratch, length);
    values[0] = new String(bytes[0], StandardCharsets.UTF_8);
    return values[0];
  }

  private String moveToFront(int index) {
    if (index == 0) {
      return values[0];
    }
    byte[] hitBytes = bytes[index];
    String hit = values[index];
    System.arraycopy(bytes, 0, bytes, 1, index);
    System.arraycopy(values, 0, values, 1, index);
    bytes[0] = hitBytes;
    values[0] = hit;
    return hit;
  }
}
