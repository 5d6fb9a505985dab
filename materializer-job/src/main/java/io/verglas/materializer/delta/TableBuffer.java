package io.verglas.materializer.delta;

import io.verglas.materializer.keyindex.KeyHash;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.source.WalRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The rows of one table received since the last flush. Primary-key rows are kept in arrival
 * order and reduced to the newest row per key when the buffer is flushed
 * ({@link #latestPerKey}), so a key replaced within one checkpoint never reaches a
 * data file; append-only rows are all kept. It also records how far the received rows reach
 * into each WAL segment, losers included: they were consumed too.
 *
 * <p>Why not a map from key to newest row on arrival: its probes into a table of 100k entries
 * missed the CPU cache on nearly every row and took a quarter of the writer's time. Reducing
 * per key group at flush time keeps each probe within a map of a few hundred entries. The price
 * is that rows replaced within the interval stay buffered until the flush; they count against
 * the byte bound like any other row, so a hot key brings an early flush, never unbounded memory.
 */
public final class TableBuffer {
  /** A rough per-row overhead: the headers of the row, its arrays and routing key, its list slot. */
  static final int ROW_OVERHEAD = 160;

  public final String tableUuid;
  public final String tableName;
  private final int maxParallelism;
  private final List<WalRow> keyed = new ArrayList<>();
  /** The key group of each row of {@link #keyed}, at the same index. */
  private int[] keyGroups = new int[64];
  /** The {@link #keyHash} of each row of {@link #keyed}, at the same index. */
  private long[] keyHashes = new long[64];
  private final List<WalRow> appends = new ArrayList<>();
  private final Map<String, SegmentProgress> segments = new HashMap<>();
  /** The row reaching furthest into the segment rows currently arrive from; not yet in segments. */
  private WalRow furthest;
  private long bytes;

  public TableBuffer(String tableUuid, String tableName, int maxParallelism) {
    this.tableUuid = tableUuid;
    this.tableName = tableName;
    this.maxParallelism = maxParallelism;
  }

  /** Adds a row; returns how many bytes the buffer grew. */
  public long add(WalRow row) {
    share(row);
    track(row);
    if (row.appendOnly()) {
      appends.add(row);
    } else {
      addKeyed(row);
    }
    long size = size(row);
    bytes += size;
    return size;
  }

  /**
   * Points the row's table strings (and, in {@link #track}, its stream and segment strings) at
   * the instances the buffer already holds: each arriving row brings its own copies
   * (deserialized from the network), and a buffer of 100k rows kept some 35 MB of duplicates
   * alive through young collections.
   */
  private void share(WalRow row) {
    if (tableUuid.equals(row.tableUuid)) {
      row.tableUuid = tableUuid;
    }
    if (tableName.equals(row.tableName)) {
      row.tableName = tableName;
    }
  }

  /**
   * Rows arrive segment by segment: the furthest row of the current segment is kept at hand and
   * merged into {@link #segments} only when the segment changes (a map update per row, hashing
   * its segment key, cost more than the rest of {@link #add}).
   */
  private void track(WalRow row) {
    if (furthest != null && furthest.segmentKey.equals(row.segmentKey)) {
      row.segmentKey = furthest.segmentKey; // shared, see share()
      row.streamId = furthest.streamId;
      if (row.ordinal > furthest.ordinal) {
        furthest = row;
      }
      return;
    }
    recordFurthest();
    furthest = row;
  }

  /**
   * The key group is taken while the row is fresh in the CPU cache: computed at flush time it
   * cost a cache miss per row (a checkpoint's rows are tens of MB), and hashing the routing key
   * now leaves its hash cached in the string for the key index's look-ups at flush time. The
   * key bytes' own hash ({@link #keyHash}) is taken here for the same reason.
   */
  private void addKeyed(WalRow row) {
    int index = keyed.size();
    if (index == keyGroups.length) {
      keyGroups = Arrays.copyOf(keyGroups, index * 2);
      keyHashes = Arrays.copyOf(keyHashes, index * 2);
    }
    keyGroups[index] = KeyGroupRangeAssignment.assignToKeyGroup(row.routingKey, maxParallelism);
    keyHashes[index] = KeyHash.of(row.key);
    keyed.add(row);
  }

  private void recordFurthest() {
    if (furthest != null) {
      segments.merge(furthest.segmentKey, furthest.progress(), SegmentProgress::max);
      furthest = null;
    }
  }

  /**
   * The newest row of each key, by key group, and within a group in the order the keys first
   * arrived. Newest is the full WAL position order (hybrid clock, then stream, sequence, batch,
   * row), so duplicates lose whatever order they arrived in.
   */
  public List<WalRow> latestPerKey() {
    // A counting sort by key group (linear, stable), then one small hash table per group.
    int rows = keyed.size();
    int[] ends = new int[maxParallelism + 1];
    for (int i = 0; i < rows; i++) {
      ends[keyGroups[i] + 1]++;
    }
    for (int group = 0; group < maxParallelism; group++) {
      ends[group + 1] += ends[group];
    }
    int[] next = Arrays.copyOf(ends, maxParallelism);
    WalRow[] grouped = new WalRow[rows];
    long[] groupedHashes = new long[rows];
    for (int i = 0; i < rows; i++) {
      int at = next[keyGroups[i]]++;
      grouped[at] = keyed.get(i);
      groupedHashes[at] = keyHashes[i];
    }
    List<WalRow> latest = new ArrayList<>(rows);
    NewestPerKey newest = new NewestPerKey(grouped, groupedHashes);
    for (int group = 0; group < maxParallelism; group++) {
      newest.reduce(ends[group], ends[group + 1], latest);
    }
    return latest;
  }

  /**
   * Reduces a run of rows to the newest of each key with an open-addressing table of row indexes,
   * probed by a 64-bit hash of the key bytes. Why not a map over routing keys: Java's string hash
   * of {@code uuid/base64(key)} collides heavily for numeric keys (500k sequential long keys give
   * 110k distinct hashes, and the equal ones land in the same key group, hence the same map), so
   * the map's bins turned into trees.
   */
  private static final class NewestPerKey {
    private final WalRow[] rows;
    private final long[] hashes;
    private int[] slots = new int[0];
    private int[] taken = new int[0];

    NewestPerKey(WalRow[] rows, long[] hashes) {
      this.rows = rows;
      this.hashes = hashes;
    }

    /** Adds the newest row of each key among {@code rows[from, to)} to {@code out}. */
    void reduce(int from, int to, List<WalRow> out) {
      int count = to - from;
      if (count == 0) {
        return;
      }
      int mask = prepare(count);
      int distinct = 0;
      for (int i = from; i < to; i++) {
        int slot = (int) hashes[i] & mask;
        while (true) {
          int at = slots[slot];
          if (at < 0) {
            slots[slot] = i;
            taken[distinct++] = slot;
            break;
          }
          if (hashes[at] == hashes[i] && Arrays.equals(rows[at].key, rows[i].key)) {
            if (rows[at].comparePosition(rows[i]) < 0) {
              slots[slot] = i;
            }
            break;
          }
          slot = (slot + 1) & mask;
        }
      }
      for (int d = 0; d < distinct; d++) {
        taken[d] = slots[taken[d]]; // the winning row's index, in place of its slot
      }
      for (int d = 0; d < distinct; d++) {
        out.add(rows[taken[d]]);
      }
    }

    /** Empties the table, sized for {@code count} rows at most half full; returns its mask. */
    private int prepare(int count) {
      int capacity = Integer.highestOneBit(Math.max(2, count) * 2 - 1) << 1;
      if (slots.length < capacity) {
        slots = new int[capacity];
      }
      if (taken.length < count) {
        taken = new int[count];
      }
      Arrays.fill(slots, 0, capacity, -1);
      return capacity - 1;
    }
  }

  /** How many primary-key rows were received (duplicates included). */
  public int keyedRows() {
    return keyed.size();
  }

  public List<WalRow> appends() {
    return appends;
  }

  public Map<String, SegmentProgress> segments() {
    recordFurthest();
    return segments;
  }

  long bytes() {
    return bytes;
  }

  /**
   * What a buffered row holds on to: its own routing key, key and payload (the table, stream and
   * segment strings are shared, see {@link #share}) plus object overhead.
   */
  static long size(WalRow row) {
    return ROW_OVERHEAD + 2L * row.routingKey.length() + row.payload.length
        + (row.key == null ? 0 : row.key.length);
  }
}
