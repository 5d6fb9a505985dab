package io.verglas.vector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Which ordinals of an index are live rows of a snapshot: their data file is in the snapshot and
 * no deletion vector (or position delete) of the snapshot covers their position. Applied at
 * search time, so even an index whose rows were deleted after it was built never returns them.
 */
final class LiveRows {
  private LiveRows() {}

  /**
   * The live ordinals of {@code rows} at {@code snapshotId}; empty when the snapshot has
   * equality deletes, which cannot be checked by position (the caller searches exactly).
   */
  static Optional<BitSet> of(Table table, long snapshotId, OrdinalMap rows) {
    Map<String, List<DeleteFile>> deletesByFile = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.EQUALITY_DELETES) {
            return Optional.empty();
          }
        }
        deletesByFile.put(task.file().location(), task.deletes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan " + table.name() + " at " + snapshotId, e);
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(delete -> table.io().newInputFile(delete));
    Map<String, PositionDeleteIndex> deleted = new HashMap<>();
    BitSet live = new BitSet(rows.size());
    for (int ordinal = 0; ordinal < rows.size(); ordinal++) {
      String file = rows.file(ordinal);
      List<DeleteFile> deletes = deletesByFile.get(file);
      if (deletes == null) {
        continue;
      }
      PositionDeleteIndex positions = deleted.computeIfAbsent(file, f -> deletes.isEmpty()
          ? PositionDeleteIndex.empty() : loader.loadPositionDeletes(deletes, f));
      if (!positions.isDeleted(rows.position(ordinal))) {
        live.set(ordinal);
      }
    }
    return Optional.of(live);
  }
}
