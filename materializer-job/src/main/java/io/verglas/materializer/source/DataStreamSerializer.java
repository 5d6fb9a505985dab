package io.verglas.materializer.source;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A {@link SimpleVersionedSerializer} whose format is written to a {@link DataOutputStream} and
 * read from a {@link DataInputStream}: subclasses say only how a value is written and read.
 * These are the source's small checkpoint values; large ones use Flink's unsynchronized buffers.
 */
abstract class DataStreamSerializer<T> implements SimpleVersionedSerializer<T> {
  private final int version;
  private final int initialBytes;

  DataStreamSerializer(int version, int initialBytes) {
    this.version = version;
    this.initialBytes = initialBytes;
  }

  @Override
  public final int getVersion() {
    return version;
  }

  @Override
  public final byte[] serialize(T value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(initialBytes);
    DataOutputStream out = new DataOutputStream(bytes);
    write(value, out);
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public final T deserialize(int serializedVersion, byte[] serialized) throws IOException {
    return read(serializedVersion, new DataInputStream(new ByteArrayInputStream(serialized)));
  }

  /** Writes {@code value} in the format of {@link #getVersion()}. */
  abstract void write(T value, DataOutputStream out) throws IOException;

  /** Reads a value written in the format of {@code serializedVersion}, refusing unknown ones. */
  abstract T read(int serializedVersion, DataInputStream in) throws IOException;
}
