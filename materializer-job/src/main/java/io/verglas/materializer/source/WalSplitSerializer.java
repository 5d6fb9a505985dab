package io.verglas.materializer.source;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * Version 1: {@code utf key, utf stream, i64 sequence, i64 rowsEmitted}. Flink stores the version
 * beside the bytes; {@link #deserialize} refuses versions it does not know.
 */
public final class WalSplitSerializer extends DataStreamSerializer<WalSplit> {
  public static final WalSplitSerializer INSTANCE = new WalSplitSerializer();
  static final int VERSION = 1;

  private WalSplitSerializer() {
    super(VERSION, 96);
  }

  @Override
  void write(WalSplit split, DataOutputStream out) throws IOException {
    out.writeUTF(split.key());
    out.writeUTF(split.streamId());
    out.writeLong(split.sequence());
    out.writeLong(split.rowsEmitted());
  }

  @Override
  WalSplit read(int version, DataInputStream in) throws IOException {
    if (version != VERSION) {
      throw new IOException("Cannot read WAL split: unknown version " + version);
    }
    return new WalSplit(in.readUTF(), in.readUTF(), in.readLong(), in.readLong());
  }
}
