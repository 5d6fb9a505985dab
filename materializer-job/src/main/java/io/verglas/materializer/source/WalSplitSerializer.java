package io.verglas.materializer.source;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Version 1: {@code utf key, utf stream, i64 sequence, i64 rowsEmitted}. Flink stores the version
 * beside the bytes; {@link #deserialize} refuses versions it does not know.
 */
public final class WalSplitSerializer implements SimpleVersionedSerializer<WalSplit> {
  public static final WalSplitSerializer INSTANCE = new WalSplitSerializer();
  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(WalSplit split) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
    DataOutputStream out = new DataOutputStream(bytes);
    write(split, out);
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public WalSplit deserialize(int version, byte[] serialized) throws IOException {
    return read(version, new DataInputStream(new ByteArrayInputStream(serialized)));
  }

  static void write(WalSplit split, DataOutputStream out) throws IOException {
    out.writeUTF(split.key());
    out.writeUTF(split.streamId());
    out.writeLong(split.sequence());
    out.writeLong(split.rowsEmitted());
  }

  static WalSplit read(int version, DataInputStream in) throws IOException {
    if (version != VERSION) {
      throw new IOException("Cannot read WAL split: unknown version " + version);
    }
    return new WalSplit(in.readUTF(), in.readUTF(), in.readLong(), in.readLong());
  }
}
