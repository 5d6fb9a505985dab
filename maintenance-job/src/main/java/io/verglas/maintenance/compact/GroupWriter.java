package io.verglas.maintenance.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes the rows of one rewrite group into Parquet files of one partition, starting a new file
 * every {@code rowsPerFile} rows: cutting by rows (not by bytes written so far) gives files of
 * equal size, so no small remainder file is left behind by a split.
 */
final class GroupWriter implements AutoCloseable {
  private final FileWriterFactory<Record> writers;
  private final OutputFileFactory files;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final long rowsPerFile;
  private final List<DataFile> written = new ArrayList<>();
  private DataWriter<Record> current;
  private long rowsInCurrent;
  private boolean closed;

  GroupWriter(Table table, Schema schema, PartitionSpec spec, StructLike partition,
      long rowsPerFile, int taskId) {
    this.writers = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(schema).build();
    this.files = OutputFileFactory.builderFor(table, spec.specId(), taskId)
        .format(FileFormat.PARQUET).operationId("maintenance-" + java.util.UUID.randomUUID())
        .build();
    this.spec = spec;
    this.partition = spec.isUnpartitioned() ? null : partition;
    this.rowsPerFile = Math.max(1, rowsPerFile);
  }

  void write(Record row) {
    if (current == null || rowsInCurrent >= rowsPerFile) {
      roll();
    }
    current.write(row);
    rowsInCurrent++;
  }

  private void roll() {
    closeCurrent();
    current = writers.newDataWriter(partition == null
        ? files.newOutputFile() : files.newOutputFile(spec, partition), spec, partition);
    rowsInCurrent = 0;
  }

  private void closeCurrent() {
    if (current == null) {
      return;
    }
    try {
      current.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close a rewritten data file", e);
    }
    written.add(current.toDataFile());
    current = null;
  }

  /** The files written; only after {@link #close}. */
  List<DataFile> result() {
    if (!closed) {
      throw new IllegalStateException("Cannot get the written files: the writer is open");
    }
    return List.copyOf(written);
  }

  @Override
  public void close() {
    if (!closed) {
      closeCurrent();
      closed = true;
    }
  }
}
