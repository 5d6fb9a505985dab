package io.verglas.materializer.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
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
final class DeletionVectorWriter implements DeleteFileWriter {
  private final Table table;
  private final String tableName;
  private final long checkpointId;

  DeletionVectorWriter(Table table, String tableName, long checkpointId) {
    this.table = table;
    this.tableName = tableName;
    this.checkpointId = checkpointId;
  }

  @Override
  public boolean needsPreviousDeletes() {
    return true;
  }

  @Override
  public Written write(Map<String, long[]> positions, Map<String, DataFile> targets,
      DataFileIndex index) {
    if (positions.isEmpty()) {
      return Written.NONE;
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    OutputFileFactory files = OutputFileFactory.builderFor(table, 0, checkpointId)
        .format(FileFormat.PUFFIN)
        .build();
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
    return new Written(List.copyOf(result.deleteFiles()),
        List.copyOf(result.rewrittenDeleteFiles()));
  }

  private static PositionDeleteIndex previous(DataFileIndex index, BaseDeleteLoader loader,
      String path) {
    List<DeleteFile> deletes = index.deletes(path);
    return deletes.isEmpty() ? null : loader.loadPositionDeletes(deletes, path);
  }
}
