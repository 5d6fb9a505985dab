package io.verglas.materializer.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Format version 2: one file-scoped Parquet position-delete file per data file and commit, rows
 * in position order, {@code referenced_data_file} set (so planners attach it to that file only).
 * A data file's earlier delete files stay valid beside it: version 2 readers apply them all, so
 * nothing is merged or removed.
 */
final class PositionDeleteFileWriter implements DeleteFileWriter {
  private final Table table;
  private final String tableName;
  private final long checkpointId;

  PositionDeleteFileWriter(Table table, String tableName, long checkpointId) {
    this.table = table;
    this.tableName = tableName;
    this.checkpointId = checkpointId;
  }

  @Override
  public boolean needsPreviousDeletes() {
    return false;
  }

  @Override
  public Written write(Map<String, long[]> positions, Map<String, DataFile> targets,
      DataFileIndex index) {
    if (positions.isEmpty()) {
      return Written.NONE;
    }
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 0, checkpointId)
        .format(FileFormat.PARQUET)
        .build();
    List<DeleteFile> added = new ArrayList<>();
    try {
      for (Map.Entry<String, long[]> entry : positions.entrySet()) {
        added.add(writeOne(writers, files, entry.getKey(), entry.getValue(),
            targets.get(entry.getKey())));
      }
    } catch (RuntimeException e) {
      Written.discard(table.io(), added);
      throw e;
    }
    // Emptied files stay (masked): only their previous position-delete files would say so, and
    // removing the data file would leave those behind, dangling.
    return new Written(added, List.of(), List.of());
  }

  private DeleteFile writeOne(GenericFileWriterFactory writers, OutputFileFactory files,
      String path, long[] positions, DataFile target) {
    PartitionSpec spec = table.specs().get(target.specId());
    EncryptedOutputFile output = spec.isUnpartitioned()
        ? files.newOutputFile() : files.newOutputFile(spec, target.partition());
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(output, spec, target.partition());
    PositionDelete<Record> delete = PositionDelete.create();
    try (PositionDeleteWriter<Record> closing = writer) {
      for (long position : positions) { // sorted: readers may rely on position order
        closing.write(delete.set(path, position));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write position deletes of " + path + " for table "
          + tableName, e);
    }
    return FileMetadata.deleteFileBuilder(spec)
        .copy(writer.toDeleteFile())
        .withReferencedDataFile(path)
        .build();
  }
}
