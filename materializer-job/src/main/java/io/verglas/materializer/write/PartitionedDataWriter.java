package io.verglas.materializer.write;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes records into one Parquet data file per partition of the table's current spec and tells
 * where each record landed (file path, row position): the key index needs that position, so
 * files are never rolled by size here.
 */
final class PartitionedDataWriter implements Closeable {
  private final Table table;
  private final Schema schema;
  private final PartitionSpec spec;
  private final GenericFileWriterFactory writers;
  private final OutputFileFactory files;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;
  private final Map<StructLike, OpenFile> open = new HashMap<>();
  private OpenFile unpartitioned;
  private List<DataFile> result;

  PartitionedDataWriter(Table table, int subtask, long attempt) {
    this.table = table;
    this.schema = table.schema();
    this.spec = table.spec();
    this.writers = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET)
        .dataSchema(schema)
        .build();
    this.files = OutputFileFactory.builderFor(table, subtask, attempt)
        .format(FileFormat.PARQUET)
        .build();
    this.partitionKey = new PartitionKey(spec, schema);
    this.wrapper = new InternalRecordWrapper(schema.asStruct());
  }

  Schema schema() {
    return schema;
  }

  /** Writes one record of {@link #schema()}; returns where it landed. */
  FilePosition write(Record record) {
    OpenFile file;
    if (spec.isUnpartitioned()) {
      if (unpartitioned == null) {
        unpartitioned = newFile(null);
      }
      file = unpartitioned;
    } else {
      partitionKey.partition(wrapper.wrap(record));
      file = open.get(partitionKey);
      if (file == null) {
        PartitionKey copy = partitionKey.copy();
        file = newFile(copy);
        open.put(copy, file);
      }
    }
    file.writer.write(record);
    return new FilePosition(file.path, file.rows++);
  }

  private OpenFile newFile(StructLike partition) {
    EncryptedOutputFile output = partition == null
        ? files.newOutputFile() : files.newOutputFile(spec, partition);
    DataWriter<Record> writer = writers.newDataWriter(output, spec, partition);
    return new OpenFile(writer, output.encryptingOutputFile().location());
  }

  /** Closes every file and returns them; call once, after the last write. */
  List<DataFile> complete() {
    if (result == null) {
      List<DataFile> dataFiles = new ArrayList<>();
      for (OpenFile file : all()) {
        try {
          file.writer.close();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot close data file " + file.path, e);
        }
        dataFiles.add(file.writer.toDataFile());
      }
      result = dataFiles;
    }
    return result;
  }

  /** Closes and deletes whatever was written (after a failure). */
  @Override
  public void close() {
    if (result != null) {
      return;
    }
    for (OpenFile file : all()) {
      try {
        file.writer.close();
      } catch (IOException | RuntimeException e) {
        // best effort: the file is an orphan either way
      }
      try {
        table.io().deleteFile(file.path);
      } catch (RuntimeException e) {
        // orphan-file removal in maintenance picks it up
      }
    }
    result = List.of();
  }

  private List<OpenFile> all() {
    List<OpenFile> all = new ArrayList<>(open.values());
    if (unpartitioned != null) {
      all.add(unpartitioned);
    }
    return all;
  }

  /** Where a record landed. */
  record FilePosition(String path, long position) {}

  private static final class OpenFile {
    private final DataWriter<Record> writer;
    private final String path;
    private long rows;

    private OpenFile(DataWriter<Record> writer, String path) {
      this.writer = writer;
      this.path = path;
    }
  }
}
