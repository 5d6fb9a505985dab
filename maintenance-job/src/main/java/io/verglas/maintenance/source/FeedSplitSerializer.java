package io.verglas.maintenance.source;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Version 1: a split is its next sequence as 8 big-endian bytes; the enumerator state is a
 * 4-byte count followed by that many splits.
 */
public final class FeedSplitSerializer implements SimpleVersionedSerializer<FeedSplit> {
  public static final FeedSplitSerializer INSTANCE = new FeedSplitSerializer();
  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(FeedSplit split) {
    return ByteBuffer.allocate(8).putLong(split.nextSequence()).array();
  }

  @Override
  public FeedSplit deserialize(int version, byte[] bytes) throws IOException {
    checkVersion(version);
    return new FeedSplit(ByteBuffer.wrap(bytes).getLong());
  }

  static void checkVersion(int version) throws IOException {
    if (version != VERSION) {
      throw new IOException("Unknown version of feed split: " + version);
    }
  }

  /** The enumerator's checkpoint: the splits not assigned to a reader. */
  public static final class State implements SimpleVersionedSerializer<List<FeedSplit>> {
    public static final State INSTANCE = new State();

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(List<FeedSplit> splits) {
      ByteBuffer out = ByteBuffer.allocate(4 + 8 * splits.size()).putInt(splits.size());
      splits.forEach(split -> out.putLong(split.nextSequence()));
      return out.array();
    }

    @Override
    public List<FeedSplit> deserialize(int version, byte[] bytes) throws IOException {
      checkVersion(version);
      ByteBuffer in = ByteBuffer.wrap(bytes);
      int count = in.getInt();
      List<FeedSplit> splits = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        splits.add(new FeedSplit(in.getLong()));
      }
      return splits;
    }
  }
}
