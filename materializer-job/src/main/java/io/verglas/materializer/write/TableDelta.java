package io.verglas.materializer.write;

import io.verglas.materializer.progress.SegmentProgress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one writer subtask produced for one table in one checkpoint, and what the committer
 * turns into one Iceberg {@code RowDelta}: new data files, row positions to delete in existing
 * (or just written) data files, and how far into each WAL segment the rows reach.
 *
 * <p>Data files travel as Iceberg's own JSON ({@code ContentFileParser}), read back with the
 * table's partition specs, so the checkpointed form does not depend on Java serialization of
 * Iceberg classes.
 */
public final class TableDelta {
  private final String tableUuid;
  private final String tableName;
  private final long checkpointId;
  private final int subtask;
  private final List<String> dataFiles;
  private final Map<String, long[]> deletes;
  private final Map<String, SegmentProgress> segments;

  public TableDelta(String tableUuid, String tableName, long checkpointId, int subtask,
      List<String> dataFiles, Map<String, long[]> deletes, Map<String, SegmentProgress> segments) {
    this.tableUuid = Objects.requireNonNull(tableUuid, "tableUuid");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
    this.checkpointId = checkpointId;
    this.subtask = subtask;
    this.dataFiles = List.copyOf(dataFiles);
    Map<String, long[]> sorted = new TreeMap<>();
    deletes.forEach((path, positions) -> sorted.put(path, sortedDistinct(positions)));
    this.deletes = Collections.unmodifiableMap(sorted);
    this.segments = Collections.unmodifiableMap(new TreeMap<>(segments));
  }

  /** The union of deltas of one table (from several subtasks, or several flushes). */
  public static TableDelta merge(List<TableDelta> deltas) {
    if (deltas.isEmpty()) {
      throw new IllegalArgumentException("Cannot merge table deltas: none given");
    }
    TableDelta first = deltas.get(0);
    List<String> files = new ArrayList<>();
    Map<String, long[]> deletes = new LinkedHashMap<>();
    Map<String, SegmentProgress> segments = new LinkedHashMap<>();
    long checkpointId = Long.MIN_VALUE;
    for (TableDelta delta : deltas) {
      if (!delta.tableUuid.equals(first.tableUuid)) {
        throw new IllegalArgumentException("Cannot merge deltas of tables " + first.tableUuid
            + " and " + delta.tableUuid);
      }
      files.addAll(delta.dataFiles);
      delta.deletes.forEach((path, positions) -> deletes.merge(path, positions, TableDelta::concat));
      delta.segments.forEach((key, progress) -> segments.merge(key, progress, SegmentProgress::max));
      checkpointId = Math.max(checkpointId, delta.checkpointId);
    }
    int subtask = deltas.size() == 1 ? first.subtask : -1;
    return new TableDelta(first.tableUuid, first.tableName, checkpointId, subtask, files, deletes,
        segments);
  }

  public String tableUuid() {
    return tableUuid;
  }

  public String tableName() {
    return tableName;
  }

  public long checkpointId() {
    return checkpointId;
  }

  /** The writer subtask, or -1 for a merged delta. */
  public int subtask() {
    return subtask;
  }

  /** New data files as Iceberg content-file JSON. */
  public List<String> dataFiles() {
    return dataFiles;
  }

  /** Data file path → sorted, distinct row positions to delete. */
  public Map<String, long[]> deletes() {
    return deletes;
  }

  /** Segment key → how far this delta's rows reach into it. */
  public Map<String, SegmentProgress> segments() {
    return segments;
  }

  /** Per stream, the furthest segment progress in this delta. */
  public Map<String, SegmentProgress> streams() {
    Map<String, SegmentProgress> streams = new TreeMap<>();
    for (SegmentProgress progress : segments.values()) {
      streams.merge(progress.streamId(), progress, (a, b) ->
          a.sequence() != b.sequence() ? (a.sequence() > b.sequence() ? a : b) : a.max(b));
    }
    return streams;
  }

  public boolean hasChanges() {
    return !dataFiles.isEmpty() || !deletes.isEmpty();
  }

  private static long[] concat(long[] a, long[] b) {
    long[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static long[] sortedDistinct(long[] positions) {
    return Arrays.stream(positions).sorted().distinct().toArray();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TableDelta other)) {
      return false;
    }
    if (deletes.size() != other.deletes.size()) {
      return false;
    }
    for (Map.Entry<String, long[]> entry : deletes.entrySet()) {
      if (!Arrays.equals(entry.getValue(), other.deletes.get(entry.getKey()))) {
        return false;
      }
    }
    return tableUuid.equals(other.tableUuid) && tableName.equals(other.tableName)
        && checkpointId == other.checkpointId && subtask == other.subtask
        && dataFiles.equals(other.dataFiles) && segments.equals(other.segments);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tableUuid, checkpointId, subtask, dataFiles, segments.keySet());
  }

  @Override
  public String toString() {
    return "TableDelta{" + tableName + " (" + tableUuid + "), checkpoint " + checkpointId
        + ", subtask " + subtask + ", " + dataFiles.size() + " data files, deletes in "
        + deletes.size() + " files, segments " + segments.keySet() + "}";
  }
}
