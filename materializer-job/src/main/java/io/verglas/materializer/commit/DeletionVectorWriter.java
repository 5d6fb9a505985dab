package io.verglas.materializer.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Format version 3: one deletion vector per data file and commit, merged with the file's
 * previous deletes (its DV, and file-scoped position-delete files of a table upgraded from
 * version 2), which the commit then removes: readers refuse two DVs for one data file.
 * {@code BaseDVFileWriter} does the merge and reports the replaced files.
 */
final class DeletionVectorWriter extends BaseDeleteFileWriter {
  DeletionVectorWriter(Table table, String tableName, long checkpointId) {
    super(table, tableName, checkpointId);
  }

  @Override
  Written write(Map<String, long[]> positions, Map<String, DataFile> targets,
      DataFileIndex index, BaseDeleteLoader loader) {
    OutputFileFactory files = outputFiles(FileFormat.PUFFIN);
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> previous(index, loader, path));
    try (BaseDVFileWriter closing = writer) {
      for (Map.Entry<String, long[]> entry : positions.entrySet()) {
        DataFile target = targets.get(entry.getKey());
        for (long position : entry.getValue()) {
          closing.delete(entry.getKey(), position, table.specs().get(target.specId()),
              target.partition());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write deletion vectors for table " + tableName, e);
    }
    DeleteWriteResult result = writer.result();
    return withoutEmptied(result, targets);
  }

  /**
   * A DV's cardinality counts the file's previous deletes too: when it equals the file's row
   * count, the file is removed rather than masked. The DV's blob stays in the Puffin file
   * (unreferenced, a few bytes: a run of every position); a Puffin file left with no DV that
   * the commit references is deleted now.
   */
  private Written withoutEmptied(DeleteWriteResult result, Map<String, DataFile> targets) {
    List<DeleteFile> kept = new ArrayList<>();
    List<DataFile> emptied = new ArrayList<>();
    for (DeleteFile dv : result.deleteFiles()) {
      DataFile target = targets.get(dv.referencedDataFile());
      if (dv.recordCount() == target.recordCount()) {
        emptied.add(target);
      } else {
        kept.add(dv);
      }
    }
    Set<String> referenced = new HashSet<>();
    kept.forEach(dv -> referenced.add(dv.location()));
    Written.discard(table.io(), result.deleteFiles().stream()
        .filter(dv -> !referenced.contains(dv.location())).toList());
    return new Written(List.copyOf(kept), List.copyOf(result.rewrittenDeleteFiles()),
        List.copyOf(emptied));
  }

  private static PositionDeleteIndex previous(DataFileIndex index, BaseDeleteLoader loader,
      String path) {
    List<DeleteFile> deletes = index.deletes(path);
    return deletes.isEmpty() ? null : loader.loadPositionDeletes(deletes, path);
  }
}
