package io.verglas.materializer.write;

import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.source.WalRow;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of one table received since the last flush: for primary-key tables only the newest
 * row per key (older ones are dropped on arrival, so a key replaced within one checkpoint never
 * reaches a data file), for append-only rows all of them. It also records how far the received
 * rows reach into each WAL segment, losers included: they were consumed too.
 */
final class TableBuffer {
  /** A rough per-row overhead (object headers, map entry, the strings Flink deserialized anew). */
  static final int ROW_OVERHEAD = 160;

  final String tableUuid;
  final String tableName;
  private final Map<String, WalRow> latest = new HashMap<>();
  private final List<WalRow> appends = new ArrayList<>();
  private final Map<String, SegmentProgress> segments = new HashMap<>();
  /** The row reaching furthest into the segment rows currently arrive from; not yet in segments. */
  private WalRow furthest;
  private long bytes;

  TableBuffer(String tableUuid, String tableName) {
    this.tableUuid = tableUuid;
    this.tableName = tableName;
  }

  /** Adds a row; returns how many bytes the buffer grew (negative when a larger row was replaced). */
  long add(WalRow row) {
    track(row);
    long before = bytes;
    if (row.appendOnly()) {
      appends.add(row);
      bytes += size(row);
    } else {
      WalRow previous = latest.putIfAbsent(row.routingKey, row);
      if (previous == null) {
        bytes += size(row);
      } else if (previous.position().compareTo(row.position()) < 0) {
        latest.put(row.routingKey, row);
        bytes += size(row) - size(previous);
      }
    }
    return bytes - before;
  }

  /**
   * Rows arrive segment by segment: the furthest row of the current segment is kept at hand and
   * merged into {@link #segments} only when the segment changes (a map update per row, hashing
   * its segment key, cost more than the rest of {@link #add}).
   */
  private void track(WalRow row) {
    if (furthest != null && furthest.segmentKey.equals(row.segmentKey)) {
      if (row.ordinal > furthest.ordinal) {
        furthest = row;
      }
      return;
    }
    recordFurthest();
    furthest = row;
  }

  private void recordFurthest() {
    if (furthest != null) {
      segments.merge(furthest.segmentKey, furthest.progress(), SegmentProgress::max);
      furthest = null;
    }
  }

  Collection<WalRow> latestByKey() {
    return latest.values();
  }

  List<WalRow> appends() {
    return appends;
  }

  Map<String, SegmentProgress> segments() {
    recordFurthest();
    return segments;
  }

  long bytes() {
    return bytes;
  }

  static long size(WalRow row) {
    long strings = (long) row.routingKey.length() + row.segmentKey.length() + row.tableName.length()
        + row.tableUuid.length() + row.streamId.length();
    return ROW_OVERHEAD + 2 * strings + row.payload.length + (row.key == null ? 0 : row.key.length);
  }
}
