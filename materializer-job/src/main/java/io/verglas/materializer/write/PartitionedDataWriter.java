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
 *
 * <p>The position is decided on the caller's thread when a record is handed in; the encoding
 * happens later on a {@link BackgroundWrites} thread, in batches of {@link #BATCH} records per
 * file, in the order they were handed in (so each record lands at its announced position).
 * {@link #complete} waits for all of it.
 */
final class PartitionedDataWriter implements Closeable {
  /** Records per background task and file. */
  static final int BATCH = 1024;

  private final Table table;
  private final Schema schema;
  private final PartitionSpec spec;
  private final GenericFileWriterFactory writers;
  private final OutputFileFactory files;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;
  private final BackgroundWrites background;
  private final Map<StructLike, OpenFile> open = new HashMap<>();
  private OpenFile unpartitioned;
  private List<DataFile> result;

  PartitionedDataWriter(Table table, int subtask, long attempt, BackgroundWrites background) {
    this.table = table;
    this.background = background;
    this.schema = table.schema();
    this.spec = table.spec();
    this.writers = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET)
        .dataSchema(schema)
        .writerProperties(DataFileProperties.of(table.properties()))
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

  /**
   * Writes one record of {@link #schema()}; returns where it lands. The record must not change
   * afterwards (it is encoded later, on the background thread).
   */
  FilePosition write(Record record) throws InterruptedException {
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
    file.pending.add(record);
    if (file.pending.size() >= BATCH) {
      dispatch(file);
    }
    return new FilePosition(file.path, file.rows++);
  }

  private void dispatch(OpenFile file) throws InterruptedException {
    List<Record> batch = file.pending;
    file.pending = new ArrayList<>(BATCH);
    background.submit(() -> batch.forEach(file.writer::write));
  }

  private OpenFile newFile(StructLike partition) {
    EncryptedOutputFile output = partition == null
        ? files.newOutputFile() : files.newOutputFile(spec, partition);
    DataWriter<Record> writer = writers.newDataWriter(output, spec, partition);
    return new OpenFile(writer, output.encryptingOutputFile().location());
  }

  /** Closes every file and returns them; call once, after the last write. */
  List<DataFile> complete() throws InterruptedException {
    if (result == null) {
      for (OpenFile file : all()) {
        dispatch(file);
        background.submit(() -> {
          try {
            file.writer.close();
          } catch (IOException e) {
            throw new UncheckedIOException("Cannot close data file " + file.path, e);
          }
        });
      }
      background.await();
      List<DataFile> dataFiles = new ArrayList<>();
      for (OpenFile file : all()) {
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
    try {
      background.await(); // nothing may touch the files while they are closed and deleted
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // the failure that brought us here; the files are deleted below either way
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
    private List<Record> pending = new ArrayList<>(BATCH);

    private OpenFile(DataWriter<Record> writer, String path) {
      this.writer = writer;
      this.path = path;
    }
  }
}
