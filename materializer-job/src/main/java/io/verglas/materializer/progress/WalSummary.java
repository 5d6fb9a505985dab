package io.verglas.materializer.progress;

import io.verglas.table.VerglasTableProperties;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Reads and writes the committed WAL positions in Iceberg snapshot summaries.
 *
 * <pre>
 *   verglas.wal.&lt;stream&gt;      = N   every row of this table in segments &lt;= N is committed
 *   verglas.wal-rows.&lt;stream&gt; = R   and the first R rows of segment N + 1 (absent when 0)
 * </pre>
 *
 * Every materializer commit carries the marks of all streams forward, so the newest snapshot
 * with a Verglas summary has them all. Other writers (compaction, Spark) do not copy our keys:
 * reading walks back the lineage to the first snapshot that has them.
 */
public final class WalSummary {
  /** Partial-segment companion of {@link VerglasTableProperties#SUMMARY_WAL_PREFIX}. */
  public static final String WAL_ROWS_PREFIX = "verglas.wal-rows.";

  private WalSummary() {}

  /** The committed marks of the table's current lineage, by stream (empty for a fresh table). */
  public static Map<String, WalMark> committed(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    while (snapshot != null) {
      if (hasMarks(snapshot.summary())) {
        return parse(snapshot.summary());
      }
      Long parent = snapshot.parentId();
      snapshot = parent == null ? null : table.snapshot(parent);
    }
    return Collections.emptyMap();
  }

  static boolean hasMarks(Map<String, String> summary) {
    for (String key : summary.keySet()) {
      if (key.startsWith(VerglasTableProperties.SUMMARY_WAL_PREFIX)) {
        return true;
      }
    }
    return false;
  }

  /** The marks recorded in one snapshot summary. */
  public static Map<String, WalMark> parse(Map<String, String> summary) {
    Map<String, WalMark> marks = new TreeMap<>();
    String prefix = VerglasTableProperties.SUMMARY_WAL_PREFIX;
    for (Map.Entry<String, String> entry : summary.entrySet()) {
      if (entry.getKey().startsWith(prefix)) {
        String stream = entry.getKey().substring(prefix.length());
        String rows = summary.get(WAL_ROWS_PREFIX + stream);
        marks.put(stream, new WalMark(parseLong(entry),
            rows == null ? 0 : parseLong(Map.entry(WAL_ROWS_PREFIX + stream, rows))));
      }
    }
    return marks;
  }

  /** Summary properties for {@code marks}. */
  public static Map<String, String> toSummary(Map<String, WalMark> marks) {
    Map<String, String> summary = new TreeMap<>();
    marks.forEach((stream, mark) -> {
      summary.put(VerglasTableProperties.SUMMARY_WAL_PREFIX + stream,
          Long.toString(mark.fullThrough()));
      if (mark.partialRows() > 0) {
        summary.put(WAL_ROWS_PREFIX + stream, Long.toString(mark.partialRows()));
      }
    });
    return summary;
  }

  private static long parseLong(Map.Entry<String, String> entry) {
    try {
      return Long.parseLong(entry.getValue());
    } catch (NumberFormatException e) {
      throw new IllegalStateException("Cannot read WAL position from snapshot summary: "
          + entry.getKey() + "=" + entry.getValue(), e);
    }
  }
}
