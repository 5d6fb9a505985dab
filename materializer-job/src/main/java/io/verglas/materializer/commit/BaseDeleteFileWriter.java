package io.verglas.materializer.commit;

import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * What both forms of delete files share: the table, its name (for errors) and the checkpoint
 * whose commit the files belong to (their names' operation id); both read the targets' previous
 * deletes, and a commit without deletes writes nothing. Subclasses write the files.
 */
abstract class BaseDeleteFileWriter implements DeleteFileWriter {
  protected final Table table;
  protected final String tableName;
  private final long checkpointId;

  BaseDeleteFileWriter(Table table, String tableName, long checkpointId) {
    this.table = table;
    this.tableName = tableName;
    this.checkpointId = checkpointId;
  }

  @Override
  public final boolean needsPreviousDeletes() {
    return true;
  }

  @Override
  public final Written write(Map<String, long[]> positions, Map<String, DataFile> targets,
      DataFileIndex index) {
    if (positions.isEmpty()) {
      return Written.NONE;
    }
    BaseDeleteLoader previous = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    return write(positions, targets, index, previous);
  }

  /**
   * {@link #write(Map, Map, DataFileIndex)} of at least one position; {@code previous} loads the
   * targets' earlier deletes.
   */
  abstract Written write(Map<String, long[]> positions, Map<String, DataFile> targets,
      DataFileIndex index, BaseDeleteLoader previous);

  /** New files of this commit in {@code format}. */
  final OutputFileFactory outputFiles(FileFormat format) {
    return OutputFileFactory.builderFor(table, 0, checkpointId).format(format).build();
  }
}
