package io.verglas.materializer.commit;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.io.FileIO;

/**
 * Writes the row deletes of one commit as Iceberg delete files, in the form the table's format
 * version calls for: deletion vectors from version 3 on ({@link DeletionVectorWriter}),
 * file-scoped Parquet position-delete files in version 2 ({@link PositionDeleteFileWriter}), so
 * that engines without V3 support can read the table. Both are fed from the same key index.
 */
interface DeleteFileWriter {
  /**
   * Writes deletes of {@code positions} (data file path → sorted, distinct positions); every
   * path has its {@code targets} entry. {@code index} holds the deletes each target already has.
   */
  Written write(Map<String, long[]> positions, Map<String, DataFile> targets, DataFileIndex index);

  /** Whether {@link #write} needs the targets' previous deletes in the index. */
  boolean needsPreviousDeletes();

  /**
   * Delete files to add, delete files they replace (to remove in the same commit), and the
   * target data files whose every row is now deleted: the commit removes those instead of
   * masking them (no delete file is added for them), so no reader opens a file with nothing in it.
   */
  record Written(List<DeleteFile> added, List<DeleteFile> replaced, List<DataFile> emptied) {
    static final Written NONE = new Written(List.of(), List.of(), List.of());

    /** Deletes the added files (after a commit that did not happen); best effort. */
    void discard(FileIO io) {
      discard(io, added);
    }

    static void discard(FileIO io, Collection<? extends ContentFile<?>> files) {
      for (String location : files.stream().map(ContentFile::location).distinct().toList()) {
        try {
          io.deleteFile(location);
        } catch (RuntimeException e) {
          // an orphan; orphan-file removal in maintenance picks it up
        }
      }
    }
  }

  static DeleteFileWriter forTable(Table table, String tableName, long checkpointId) {
    int formatVersion = TableUtil.formatVersion(table);
    if (formatVersion >= 3) {
      return new DeletionVectorWriter(table, tableName, checkpointId);
    }
    if (formatVersion == 2) {
      return new PositionDeleteFileWriter(table, tableName, checkpointId);
    }
    throw new IllegalStateException("Cannot commit deletes to table " + tableName
        + ": it has format version " + formatVersion + ", which has no row-level deletes;"
        + " primary-key tables need format version 2 (position deletes) or 3 (deletion vectors)");
  }
}
