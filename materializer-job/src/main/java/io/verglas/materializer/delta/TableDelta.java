package io.verglas.materializer.delta;

import io.verglas.materializer.progress.SegmentProgress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one writer subtask produced for one table in one checkpoint, and what the committer
 * turns into one Iceberg {@code RowDelta}: new data files, rows to delete in existing (or just
 * written) data files ({@link DeletedRows}: positions, each with the row's primary key), and how
 * far into each WAL segment the rows reach.
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
  private final Map<String, DeletedRows> deletes;
  private final Map<String, SegmentProgress> segments;

  public TableDelta(String tableUuid, String tableName, long checkpointId, int subtask,
      List<String> dataFiles, Map<String, DeletedRows> deletes,
      Map<String, SegmentProgress> segments) {
    this.tableUuid = Objects.requireNonNull(tableUuid, "tableUuid");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
    this.checkpointId = checkpointId;
    this.subtask = subtask;
    this.dataFiles = List.copyOf(dataFiles);
    Map<String, DeletedRows> sorted = new TreeMap<>();
    deletes.forEach((path, rows) -> {
      if (rows.size() > 0) {
        sorted.put(path, rows);
      }
    });
    this.deletes = Collections.unmodifiableMap(sorted);
    this.segments = Collections.unmodifiableMap(new TreeMap<>(segments));
  }

  /** The same delta for another checkpoint and subtask. */
  public TableDelta withCheckpoint(long newCheckpointId, int newSubtask) {
    return new TableDelta(tableUuid, tableName, newCheckpointId, newSubtask, dataFiles, deletes,
        segments);
  }

  /** The union of deltas of one table (from several subtasks, or several flushes). */
  public static TableDelta merge(List<TableDelta> deltas) {
    if (deltas.isEmpty()) {
      throw new IllegalArgumentException("Cannot merge table deltas: none given");
    }
    TableDelta first = deltas.get(0);
    List<String> files = new ArrayList<>();
    Map<String, DeletedRows> deletes = new LinkedHashMap<>();
    Map<String, SegmentProgress> segments = new LinkedHashMap<>();
    long checkpointId = Long.MIN_VALUE;
    for (TableDelta delta : deltas) {
      if (!delta.tableUuid.equals(first.tableUuid)) {
        throw new IllegalArgumentException("Cannot merge deltas of tables " + first.tableUuid
            + " and " + delta.tableUuid);
      }
      files.addAll(delta.dataFiles);
      delta.deletes.forEach((path, rows) -> deletes.merge(path, rows, DeletedRows::union));
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

  /** Data file path → the rows to delete in it. */
  public Map<String, DeletedRows> deletedRows() {
    return deletes;
  }

  /** Data file path → sorted, distinct row positions to delete. */
  public Map<String, long[]> deletes() {
    Map<String, long[]> positions = new TreeMap<>();
    deletes.forEach((path, rows) -> positions.put(path, rows.positions()));
    return positions;
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

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TableDelta other)) {
      return false;
    }
    return tableUuid.equals(other.tableUuid) && tableName.equals(other.tableName)
        && checkpointId == other.checkpointId && subtask == other.subtask
        && dataFiles.equals(other.dataFiles) && deletes.equals(other.deletes)
        && segments.equals(other.segments);
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
