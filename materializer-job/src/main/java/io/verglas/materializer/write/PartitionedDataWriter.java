package io.verglas.materializer.write;

import io.verglas.row.RowDecoder;
import io.verglas.row.RowFields;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Writes rows (WAL payloads, {@code RowCodec} bytes) into one Parquet data file per partition of
 * the table's current spec and tells where each row landed (file path, row position): the key
 * index needs that position, so files are never rolled by size here.
 *
 * <p>The position is decided on the caller's thread when a row is handed in, once its bytes were
 * checked against the schema (a row that cannot be written fails there, with no file touched);
 * the encoding happens later on a {@link BackgroundWrites} thread ({@link PayloadParquetWriter}),
 * in batches of {@link #BATCH} rows per file, in the order they were handed in (so each row lands
 * at its announced position). {@link #complete} waits for all of it. Only a partitioned table
 * decodes rows on the caller's thread, for their partition values.
 */
final class PartitionedDataWriter implements Closeable {
  /** Rows per background task and file. */
  static final int BATCH = 1024;
  private static final Base64.Encoder OPERATION_IDS = Base64.getUrlEncoder().withoutPadding();

  private final Table table;
  private final Schema schema;
  private final PartitionSpec spec;
  private final Map<String, String> writerProperties;
  private final OutputFileFactory files;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;
  private final RowDecoder decoder;
  private final RowFields fields;
  private final int[] offsets;
  private final BackgroundWrites background;
  private final Map<StructLike, OpenFile> open = new HashMap<>();
  private OpenFile unpartitioned;
  private List<DataFile> result;

  PartitionedDataWriter(Table table, int subtask, long attempt, BackgroundWrites background) {
    this.table = table;
    this.background = background;
    this.schema = table.schema();
    this.spec = table.spec();
    this.writerProperties = DataFileProperties.of(table.properties());
    this.files = OutputFileFactory.builderFor(table, subtask, attempt)
        .format(FileFormat.PARQUET)
        .operationId(operationId())
        .build();
    this.partitionKey = new PartitionKey(spec, schema);
    this.wrapper = new InternalRecordWrapper(schema.asStruct());
    this.decoder = new RowDecoder(schema);
    this.fields = new RowFields(schema);
    this.offsets = new int[fields.size()];
  }

  /**
   * What tells these files apart from every other writer's and interval's: a random UUID, as
   * Iceberg's file factory takes by default, but in 22 URL-safe Base64 characters instead of 36.
   * Why: the key index stores a data file's path in the entry of every key it holds, and RocksDB
   * copies each entry into its memtable, its files, compactions and checkpoints; the shorter
   * name makes an entry (key and value, about 116 bytes) an eighth smaller.
   */
  private static String operationId() {
    UUID uuid = UUID.randomUUID();
    ByteBuffer bytes = ByteBuffer.allocate(16)
        .putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits());
    return OPERATION_IDS.encodeToString(bytes.array());
  }

  Schema schema() {
    return schema;
  }

  /**
   * Writes one row of {@link #schema()}; returns where it lands. The bytes must not change
   * afterwards (they are encoded later, on the background thread).
   *
   * @throws IllegalArgumentException if the row cannot be read with the schema (nothing written)
   */
  FilePosition write(byte[] row) throws InterruptedException {
    fields.locate(row, offsets);
    OpenFile file;
    if (spec.isUnpartitioned()) {
      if (unpartitioned == null) {
        unpartitioned = newFile(null);
      }
      file = unpartitioned;
    } else {
      partitionKey.partition(wrapper.wrap(decoder.decode(row, offsets)));
      file = open.get(partitionKey);
      if (file == null) {
        PartitionKey copy = partitionKey.copy();
        file = newFile(copy);
        open.put(copy, file);
      }
    }
    file.pending.add(row);
    if (file.pending.size() >= BATCH) {
      dispatch(file);
    }
    return new FilePosition(file.path, file.rows++);
  }

  private void dispatch(OpenFile file) throws InterruptedException {
    List<byte[]> batch = file.pending;
    file.pending = new ArrayList<>(BATCH);
    background.submit(() -> batch.forEach(file.writer::write));
  }

  private OpenFile newFile(StructLike partition) {
    EncryptedOutputFile output = partition == null
        ? files.newOutputFile() : files.newOutputFile(spec, partition);
    try {
      DataWriter<byte[]> writer = Parquet.writeData(output)
          .schema(schema)
          .setAll(table.properties())
          .setAll(writerProperties)
          .metricsConfig(MetricsConfig.forTable(table))
          .withSpec(spec)
          .withPartition(partition)
          .withKeyMetadata(output.keyMetadata())
          .createWriterFunc(PayloadParquetWriter::create)
          .overwrite()
          .build();
      return new OpenFile(writer, output.encryptingOutputFile().location());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open a data file of table " + table.name(), e);
    }
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
    private final DataWriter<byte[]> writer;
    private final String path;
    private long rows;
    private List<byte[]> pending = new ArrayList<>(BATCH);

    private OpenFile(DataWriter<byte[]> writer, String path) {
      this.writer = writer;
      this.path = path;
    }
  }
}
