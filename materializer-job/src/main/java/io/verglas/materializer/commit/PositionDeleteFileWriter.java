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
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Format version 2: one file-scoped Parquet position-delete file per data file and commit, rows
 * in position order, {@code referenced_data_file} set (so planners attach it to that file only).
 * A data file's earlier delete files stay valid beside it: version 2 readers apply them all, so
 * nothing is merged.
 *
 * <p>A data file whose rows would then all be deleted is removed instead, with its file-scoped
 * delete files (nothing dangles). Whether it is emptied is decided from the counts first (the
 * earlier delete files' row counts plus this commit's positions reach the file's), and only
 * then confirmed from the positions themselves, read back: rows are deleted once, so the counts
 * rarely overstate, but a file is removed only when every position is known to be deleted.
 * Deletes scoped to a partition (another engine's) are not counted: the file may then stay
 * masked, never the reverse.
 */
final class PositionDeleteFileWriter extends BaseDeleteFileWriter {
  PositionDeleteFileWriter(Table table, String tableName, long checkpointId) {
    super(table, tableName, checkpointId);
  }

  @Override
  Written write(Map<String, long[]> positions, Map<String, DataFile> targets,
      DataFileIndex index, BaseDeleteLoader loader) {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET)
        .build();
    OutputFileFactory files = outputFiles(FileFormat.PARQUET);
    List<DeleteFile> added = new ArrayList<>();
    List<DeleteFile> replaced = new ArrayList<>();
    List<DataFile> emptied = new ArrayList<>();
    try {
      for (Map.Entry<String, long[]> entry : positions.entrySet()) {
        String path = entry.getKey();
        DataFile target = targets.get(path);
        List<DeleteFile> previous = fileScoped(index.deletes(path));
        if (isEmptied(target, entry.getValue(), previous, loader)) {
          emptied.add(target);
          replaced.addAll(previous);
        } else {
          added.add(writeOne(writers, files, path, entry.getValue(), target));
        }
      }
    } catch (RuntimeException e) {
      Written.discard(table.io(), added);
      throw e;
    }
    return new Written(added, replaced, emptied);
  }

  private static List<DeleteFile> fileScoped(List<DeleteFile> deletes) {
    return deletes.stream().filter(file -> file.referencedDataFile() != null).toList();
  }

  private static boolean isEmptied(DataFile target, long[] positions, List<DeleteFile> previous,
      BaseDeleteLoader loader) {
    long counted = positions.length;
    for (DeleteFile file : previous) {
      counted += file.recordCount();
    }
    if (counted < target.recordCount()) {
      return false;
    }
    if (previous.isEmpty()) {
      return true; // the positions are distinct
    }
    PositionDeleteIndex deleted = loader.loadPositionDeletes(previous, target.location());
    long union = deleted.cardinality();
    for (long position : positions) {
      if (!deleted.isDeleted(position)) {
        union++;
      }
    }
    return union == target.recordCount();
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
