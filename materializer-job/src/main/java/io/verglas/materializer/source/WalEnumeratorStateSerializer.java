package io.verglas.materializer.source;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Version 1: {@code i32 n, n × (utf stream, utf lastKey), i32 splitVersion, i32 m, m × split}
 * with the splits in the {@link WalSplitSerializer} format of {@code splitVersion}.
 */
public final class WalEnumeratorStateSerializer extends DataStreamSerializer<WalEnumeratorState> {
  public static final WalEnumeratorStateSerializer INSTANCE = new WalEnumeratorStateSerializer();
  static final int VERSION = 1;
  private static final WalSplitSerializer SPLITS = WalSplitSerializer.INSTANCE;

  private WalEnumeratorStateSerializer() {
    super(VERSION, 256);
  }

  @Override
  void write(WalEnumeratorState state, DataOutputStream out) throws IOException {
    out.writeInt(state.discoveredUpTo().size());
    for (Map.Entry<String, String> entry : state.discoveredUpTo().entrySet()) {
      out.writeUTF(entry.getKey());
      out.writeUTF(entry.getValue());
    }
    out.writeInt(SPLITS.getVersion());
    out.writeInt(state.unassigned().size());
    for (WalSplit split : state.unassigned()) {
      SPLITS.write(split, out);
    }
  }

  @Override
  WalEnumeratorState read(int version, DataInputStream in) throws IOException {
    if (version != VERSION) {
      throw new IOException("Cannot read WAL enumerator state: unknown version " + version);
    }
    int streams = in.readInt();
    Map<String, String> cursors = new LinkedHashMap<>();
    for (int i = 0; i < streams; i++) {
      cursors.put(in.readUTF(), in.readUTF());
    }
    int splitVersion = in.readInt();
    int count = in.readInt();
    List<WalSplit> splits = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      splits.add(SPLITS.read(splitVersion, in));
    }
    return new WalEnumeratorState(cursors, splits);
  }
}
