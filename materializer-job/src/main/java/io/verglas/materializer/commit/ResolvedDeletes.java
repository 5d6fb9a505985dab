package io.verglas.materializer.commit;

import io.verglas.materializer.delta.DeletedRows;
import io.verglas.materializer.delta.TableDelta;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The deletes of one delta resolved against the snapshot a commit starts from: every (file,
 * position) whose file is live there (or added by the delta itself) is taken as it is; the rows
 * of files that were rewritten since the writer recorded them are found again by key
 * ({@link KeyRelocator}). Then each target data file is known with its spec, partition and row
 * count, and the previous deletes a DV must absorb.
 */
final class ResolvedDeletes {
  private final DeleteFileWriter writer;
  private final Map<String, long[]> positions;
  private final Map<String, DataFile> targets;
  private final DataFileIndex index;
  private final Set<String> existing;
  private final int relocated;

  private ResolvedDeletes(DeleteFileWriter writer, Map<String, long[]> positions,
      Map<String, DataFile> targets, DataFileIndex index, Set<String> existing, int relocated) {
    this.writer = writer;
    this.positions = positions;
    this.targets = targets;
    this.index = index;
    this.existing = existing;
    this.relocated = relocated;
  }

  static ResolvedDeletes resolve(Table table, TableDelta delta, Snapshot base,
      Map<String, DataFile> added) {
    String tableName = delta.tableName();
    DeleteFileWriter writer = DeleteFileWriter.forTable(table, tableName, delta.checkpointId());
    Set<String> existing = existing(delta.deletedRows().keySet(), added);
    DataFileIndex index = DataFileIndex.load(table, base, existing, writer.needsPreviousDeletes());
    Map<String, DeletedRows> live = new TreeMap<>();
    Map<String, DeletedRows> stale = new TreeMap<>();
    for (Map.Entry<String, DeletedRows> entry : delta.deletedRows().entrySet()) {
      String path = entry.getKey();
      boolean isLive = added.containsKey(path) || index.dataFile(path).isPresent();
      (isLive ? live : stale).put(path, entry.getValue());
    }
    int relocated = 0;
    if (!stale.isEmpty()) {
      KeyRelocator.Relocation relocation = KeyRelocator.relocate(table, tableName, base, stale);
      for (Map.Entry<String, DeletedRows> entry : relocation.deletes().entrySet()) {
        live.merge(entry.getKey(), entry.getValue(), DeletedRows::union);
        relocated += entry.getValue().size();
      }
      existing = existing(live.keySet(), added);
      index = DataFileIndex.load(table, base, existing, writer.needsPreviousDeletes());
    }
    Map<String, long[]> positions = new TreeMap<>();
    Map<String, DataFile> targets = new HashMap<>();
    for (Map.Entry<String, DeletedRows> entry : live.entrySet()) {
      String path = entry.getKey();
      DataFile target = added.containsKey(path) ? added.get(path)
          : index.dataFile(path).orElse(null);
      if (target == null) { // the relocator only returns live files
        throw new IllegalStateException("Cannot commit checkpoint " + delta.checkpointId()
            + " to table " + tableName + ": data file " + path + " is not in snapshot "
            + (base == null ? "(none)" : base.snapshotId()));
      }
      long[] rows = entry.getValue().positions();
      for (long position : rows) {
        if (position < 0 || position >= target.recordCount()) {
          throw new IllegalStateException("Cannot delete row " + position + " of " + path
              + ": it has " + target.recordCount() + " rows");
        }
      }
      positions.put(path, rows);
      targets.put(path, target);
    }
    return new ResolvedDeletes(writer, positions, targets, index, existing, relocated);
  }

  private static Set<String> existing(Set<String> paths, Map<String, DataFile> added) {
    Set<String> existing = new TreeSet<>(paths);
    existing.removeAll(added.keySet());
    return existing;
  }

  /** Writes the delete files (DVs or position-delete files, as the format version asks). */
  DeleteFileWriter.Written write() {
    return writer.write(positions, targets, index);
  }

  /** Data file path → positions to delete, after re-resolution. */
  Map<String, long[]> positions() {
    return positions;
  }

  /** The referenced data files that the commit needs to still exist (not added by it). */
  Set<String> existing() {
    return existing;
  }

  /** How many rows were found again by key. */
  int relocated() {
    return relocated;
  }
}
