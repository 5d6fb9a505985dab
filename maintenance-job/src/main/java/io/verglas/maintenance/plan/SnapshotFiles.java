package io.verglas.maintenance.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The live data files of one snapshot with the delete files that apply to each: the planner's
 * input ({@link #states}) and the executor's ({@link #task}). Holds one scan task per data file,
 * so its memory is that of the table's file list.
 */
public final class SnapshotFiles {
  private final Snapshot snapshot;
  private final Map<String, FileScanTask> tasks;
  private final List<FileState> states;

  private SnapshotFiles(Snapshot snapshot, Map<String, FileScanTask> tasks, List<FileState> states) {
    this.snapshot = snapshot;
    this.tasks = tasks;
    this.states = states;
  }

  /** The files of the table's current snapshot; empty files for an empty table. */
  public static SnapshotFiles current(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return new SnapshotFiles(null, Map.of(), List.of());
    }
    Map<String, FileScanTask> tasks = new LinkedHashMap<>();
    List<FileState> states = new ArrayList<>();
    try (CloseableIterable<FileScanTask> scan =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : scan) {
        // planFiles may cut a large file into several tasks; one per file is enough here.
        if (tasks.putIfAbsent(task.file().location(), task) == null) {
          states.add(state(task));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the files of " + table.name(), e);
    }
    return new SnapshotFiles(snapshot, Collections.unmodifiableMap(tasks), List.copyOf(states));
  }

  /** The snapshot read, or null for a table without one. */
  public Snapshot snapshot() {
    return snapshot;
  }

  public List<FileState> states() {
    return states;
  }

  /** The scan task of a data file of this snapshot. */
  public FileScanTask task(String path) {
    FileScanTask task = tasks.get(path);
    if (task == null) {
      throw new IllegalArgumentException("Cannot find data file " + path + " in snapshot "
          + (snapshot == null ? "none" : snapshot.snapshotId()));
    }
    return task;
  }

  private static FileState state(FileScanTask task) {
    String partition = task.file().specId() + "/" + task.spec().partitionToPath(task.file().partition());
    long deleted = 0;
    for (DeleteFile delete : task.deletes()) {
      // Only file-scoped position deletes and DVs count rows of this file exactly.
      if (delete.content() == FileContent.POSITION_DELETES
          && task.file().location().equals(delete.referencedDataFile())) {
        deleted += delete.recordCount();
      }
    }
    return new FileState(task.file().location(), partition, task.file().fileSizeInBytes(),
        task.file().recordCount(), Math.min(deleted, task.file().recordCount()),
        task.deletes().size());
  }
}
