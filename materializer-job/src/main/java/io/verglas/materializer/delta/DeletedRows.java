package io.verglas.materializer.delta;

import java.util.Arrays;
import java.util.Objects;

/**
 * The rows of one data file a delta deletes: sorted, distinct row positions, and for each the
 * primary key of the row ({@link KeyRows} payload) or null when it is not known (deltas written
 * before keys were recorded).
 *
 * <p>The position is where the writer's key index last saw the row; the key is what lets the
 * committer find the row again when the file has since been rewritten by a compaction.
 */
public final class DeletedRows {
  private static final byte[][] NO_KEYS = new byte[0][];

  private final long[] positions;
  private final byte[][] keys;

  private DeletedRows(long[] positions, byte[][] keys) {
    this.positions = positions;
    this.keys = keys;
  }

  /** Positions without keys. */
  public static DeletedRows of(long... positions) {
    Builder builder = builder();
    for (long position : positions) {
      builder.add(position, null);
    }
    return builder.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The sorted, distinct positions. Do not modify. */
  public long[] positions() {
    return positions;
  }

  public int size() {
    return positions.length;
  }

  public long position(int index) {
    return positions[index];
  }

  /** The key payload of the row at {@code index}, or null when unknown. */
  public byte[] key(int index) {
    return keys[index];
  }

  public boolean hasAllKeys() {
    for (byte[] key : keys) {
      if (key == null) {
        return false;
      }
    }
    return true;
  }

  /** Both sets of rows; for a position in both, a known key wins over an unknown one. */
  public DeletedRows union(DeletedRows other) {
    Builder builder = builder();
    builder.addAll(this);
    builder.addAll(other);
    return builder.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeletedRows other && Arrays.equals(positions, other.positions)
        && Arrays.deepEquals(keys, other.keys);
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(positions), Arrays.deepHashCode(keys));
  }

  @Override
  public String toString() {
    return Arrays.toString(positions);
  }

  /** Collects (position, key) pairs in any order. */
  public static final class Builder {
    private long[] positions = new long[8];
    private byte[][] keys = new byte[8][];
    private int size;

    private Builder() {}

    public Builder add(long position, byte[] key) {
      if (size == positions.length) {
        positions = Arrays.copyOf(positions, size * 2);
        keys = Arrays.copyOf(keys, size * 2);
      }
      positions[size] = position;
      keys[size] = key;
      size++;
      return this;
    }

    public Builder addAll(DeletedRows rows) {
      for (int i = 0; i < rows.size(); i++) {
        add(rows.positions[i], rows.keys[i]);
      }
      return this;
    }

    public boolean isEmpty() {
      return size == 0;
    }

    public DeletedRows build() {
      Integer[] order = new Integer[size];
      for (int i = 0; i < size; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Long.compare(positions[a], positions[b]));
      long[] sorted = new long[size];
      byte[][] sortedKeys = size == 0 ? NO_KEYS : new byte[size][];
      int distinct = 0;
      for (int i = 0; i < size; i++) {
        int from = order[i];
        if (distinct > 0 && sorted[distinct - 1] == positions[from]) {
          if (sortedKeys[distinct - 1] == null) {
            sortedKeys[distinct - 1] = keys[from];
          }
          continue;
        }
        sorted[distinct] = positions[from];
        sortedKeys[distinct] = keys[from];
        distinct++;
      }
      return new DeletedRows(Arrays.copyOf(sorted, distinct), Arrays.copyOf(sortedKeys, distinct));
    }
  }
}
