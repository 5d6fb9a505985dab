package io.verglas.materializer.data;

import io.verglas.row.RowDecoder;
import io.verglas.row.RowFields;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Writes rows (WAL payloads, {@code RowCodec} bytes) into Parquet data files, per partition of
 * the table's current spec, and tells where each row landed (file path, row position): the key
 * index needs that position, so files are never rolled by size here.
 *
 * <p>The position is decided on the caller's thread when a row is handed in, once its bytes were
 * checked against the schema (a row that cannot be written fails there, with no file touched).
 * The rows are encoded later ({@link PayloadParquetWriter}) on the writer's encoding lanes (a
 * {@link BackgroundWrites} thread each), in batches of {@link #BATCH} rows, in position order.
 * Until its batch is handed over, a row is staged and may be {@link #replace}d by a newer
 * version of its key in the same partition, which then takes its position: the replaced version
 * never reaches a file. Only a partitioned table decodes rows on the caller's thread, for their
 * partition values.
 *
 * <p>How long rows stay staged is the caller's choice ({@link Staging}): a batch at a time, its
 * encoding then overlapping the rows that follow, or until {@link #complete}, when all of them
 * are encoded while the caller waits. Staged to the end, a partition opens a file per lane once
 * its first file has {@link #LANE_ROWS} rows and takes rows on its files in turn, so that the
 * lanes encode in parallel (a small partition still makes a single file).
 *
 * <p>A file's Parquet writer opens with its first encoded batch, not with its first row: it holds
 * about 1 MB of buffers however few rows it gets (measured: 2.1 MB of heap per open writer of a
 * table without a key, 4.2 MB with one, G1 giving each buffer of a page a region of its own), so
 * a writer with many tables open holds only their rows until they are encoded
 * ({@link #encodingFiles}).
 */
public final class PartitionedDataWriter implements Closeable {
  /** Rows per background task and file. */
  public static final int BATCH = 1024;
  /** How many rows a partition's first file takes before the partition spreads over the lanes. */
  static final int LANE_ROWS = 16 * BATCH;
  private static final Base64.Encoder OPERATION_IDS = Base64.getUrlEncoder().withoutPadding();

  /** How long rows stay staged, replaceable, before they are encoded. */
  public enum Staging {
    /** Until a file's batch is full: encoding overlaps the rows that follow. */
    PER_BATCH,
    /** Until {@link #complete}: no version replaced before then reaches a file. */
    UNTIL_COMPLETE
  }

  private final Table table;
  private final Schema schema;
  /**
   * Whether the files carry {@code _row_id} (format version 3 and later): each row has an id
   * ({@link RowIdParquetWriter}), explicit for a new version of an existing key.
   */
  private final boolean rowIds;
  private final PartitionSpec spec;
  private final Map<String, String> writerProperties;
  private final OutputFileFactory files;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;
  private final RowDecoder decoder;
  private final RowFields fields;
  private final int[] offsets;
  private final List<BackgroundWrites> lanes;
  private final Map<StructLike, Partition> open = new HashMap<>();
  private final Map<String, OpenFile> byPath = new HashMap<>();
  private final Staging staging;
  /** How many partitions were opened: the next one's first file goes to the next lane. */
  private int partitionsOpened;
  private Partition unpartitioned;
  private List<DataFile> result;
  private long rows;
  private long replacedStaged;
  private long replacedEncoded;

  /** A writer encoding on {@code lanes} (one file per lane and partition at most). */
  public PartitionedDataWriter(Table table, int subtask, long attempt, List<BackgroundWrites> lanes,
      Staging staging) {
    if (lanes.isEmpty()) {
      throw new IllegalArgumentException("A data writer needs at least one encoding lane");
    }
    this.table = table;
    this.lanes = List.copyOf(lanes);
    this.staging = staging;
    this.schema = table.schema();
    this.rowIds = TableUtil.formatVersion(table) >= 3;
    this.spec = table.spec();
    this.writerProperties = DataFileProperties.of(table.properties(), schema);
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
   * copies each entry into its memtable, its files, compactions and checkpoints; a name of this
   * form is stored as its numbers and the id's 16 bytes ({@link DataFileNames}).
   */
  private static String operationId() {
    UUID uuid = UUID.randomUUID();
    ByteBuffer bytes = ByteBuffer.allocate(16)
        .putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits());
    return OPERATION_IDS.encodeToString(bytes.array());
  }

  public Schema schema() {
    return schema;
  }

  /** Whether the files carry row ids ({@link #write(byte[], long)}). */
  public boolean writesRowIds() {
    return rowIds;
  }

  /**
   * Stages one row of {@link #schema()}; returns where it lands. The bytes must not change
   * afterwards (they are encoded later, on a background thread).
   *
   * @throws IllegalArgumentException if the row cannot be read with the schema (nothing written)
   */
  public FilePosition write(byte[] row) throws InterruptedException {
    return write(row, RowIdParquetWriter.INHERITED);
  }

  /**
   * Stages one row of {@link #schema()} with its {@code _row_id} ({@link
   * RowIdParquetWriter#INHERITED} for a new row; ignored when the files carry no row ids);
   * returns where it lands. The bytes must not change afterwards (they are encoded later, on a
   * background thread).
   *
   * @throws IllegalArgumentException if the row cannot be read with the schema (nothing written)
   */
  public FilePosition write(byte[] row, long rowId) throws InterruptedException {
    OpenFile file = partitionOf(row).next();
    long position = file.dispatched + file.rows.size();
    file.rows.add(row);
    if (rowIds) {
      file.ids.add(rowId);
    }
    rows++;
    if (staging == Staging.PER_BATCH && file.rows.size() >= BATCH) {
      dispatch(file);
    }
    return new FilePosition(file.path, position);
  }

  /**
   * Puts {@code row} at {@code position} of the file at {@code path} in place of the row staged
   * there, when that file is open here, the row there is still staged and {@code row} belongs to
   * the same partition; returns the row it replaced, or null (nothing changed).
   *
   * @throws IllegalArgumentException if the row cannot be read with the schema (nothing written)
   */
  public byte[] replace(String path, long position, byte[] row) {
    OpenFile file = byPath.get(path);
    if (file == null) {
      return null;
    }
    if (position < file.dispatched) {
      replacedEncoded++;
      return null;
    }
    if (partitionOf(row) != file.partition) {
      return null;
    }
    replacedStaged++;
    return file.rows.set(Math.toIntExact(position - file.dispatched), row);
  }

  /**
   * The {@code _row_id} written for the row at {@code position} of the open file at
   * {@code path} ({@link RowIdParquetWriter#INHERITED} for a null), or {@link RowIdParquetWriter#UNKNOWN}
   * when no such file is open here or the files carry no row ids. A replaced row's id stays:
   * the new version of a key takes the place of the old one, lineage included.
   */
  public long rowIdAt(String path, long position) {
    OpenFile file = byPath.get(path);
    if (file == null || !rowIds || position < 0 || position >= file.ids.size()) {
      return RowIdParquetWriter.UNKNOWN;
    }
    return file.ids.get(Math.toIntExact(position));
  }

  /**
   * The row ids of every file by path (position by position, {@link RowIdParquetWriter#INHERITED}
   * for a null), once {@link #complete} returned; empty when the files carry none.
   */
  public Map<String, long[]> writtenRowIds() {
    if (result == null) {
      throw new IllegalStateException("Cannot get the row ids written: the files are open");
    }
    Map<String, long[]> written = new HashMap<>();
    if (rowIds) {
      for (OpenFile file : all()) {
        written.put(file.path, file.ids.toArray());
      }
    }
    return written;
  }

  /**
   * How many rows were written and, of those, how many a newer version of their key replaced
   * before these files closed: in place, while staged, or too late, once encoded.
   */
  public Replacements replacements() {
    return new Replacements(rows, replacedStaged, replacedEncoded);
  }

  /** Rows written to a writer's files and how many of them were replaced while it was open. */
  public record Replacements(long rows, long staged, long encoded) {
    /** The fraction of the rows handed in that a later one of the same key replaced. */
    public double replacedFraction() {
      long handedIn = rows + staged;
      return handedIn == 0 ? 0 : (double) (staged + encoded) / handedIn;
    }
  }

  /** The row's partition, opened if need be; checks the row against the schema. */
  private Partition partitionOf(byte[] row) {
    fields.locate(row, offsets);
    if (spec.isUnpartitioned()) {
      if (unpartitioned == null) {
        unpartitioned = new Partition(null, partitionsOpened++);
      }
      return unpartitioned;
    }
    partitionKey.partition(wrapper.wrap(decoder.decode(row, offsets)));
    Partition partition = open.get(partitionKey);
    if (partition == null) {
      PartitionKey copy = partitionKey.copy();
      partition = new Partition(copy, partitionsOpened++);
      open.put(copy, partition);
    }
    return partition;
  }

  /** Hands a file's staged rows to its lane as one batch. */
  private void dispatch(OpenFile file) throws InterruptedException {
    List<byte[]> batch = file.rows;
    long[] ids = file.idsOf(file.dispatched, batch.size());
    file.rows = new ArrayList<>(BATCH);
    file.dispatched += batch.size();
    file.lane.submit(() -> file.encode(batch, ids));
  }

  /**
   * Hands the staged rows of every file to its lane, batch after batch, the files' batches in
   * turn (a lane takes a bounded number of batches at a time, so one file's batches submitted
   * all at once would keep the other lanes waiting), then closes the files on their lanes.
   */
  private void dispatchAll(List<OpenFile> all) throws InterruptedException {
    int most = 0;
    for (OpenFile file : all) {
      most = Math.max(most, file.rows.size());
    }
    for (OpenFile file : all) {
      file.knownRows = file.dispatched == 0 ? file.rows.size() : -1;
    }
    for (int from = 0; from < most; from += BATCH) {
      for (OpenFile file : all) {
        if (from < file.rows.size()) {
          List<byte[]> staged = file.rows.subList(from, Math.min(file.rows.size(), from + BATCH));
          List<byte[]> batch = new ArrayList<>(staged);
          long[] ids = file.idsOf(file.dispatched + from, batch.size());
          staged.replaceAll(row -> null); // released once written, not with the last batch
          file.lane.submit(() -> file.encode(batch, ids));
        }
      }
    }
    for (OpenFile file : all) {
      file.dispatched += file.rows.size();
      file.rows = List.of();
      file.lane.submit(() -> {
        try {
          file.encoder().writer().close();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot close data file " + file.path, e);
        }
      });
    }
  }

  private void awaitLanes() throws InterruptedException {
    RuntimeException failure = null;
    for (BackgroundWrites lane : lanes) {
      try {
        lane.await();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private OpenFile newFile(Partition partition, BackgroundWrites lane) {
    EncryptedOutputFile output = partition.key == null
        ? files.newOutputFile() : files.newOutputFile(spec, partition.key);
    OpenFile file = new OpenFile(output, partition, lane);
    byPath.put(file.path, file);
    return file;
  }

  /**
   * The Parquet writer of a file, opened on its lane when its first batch is encoded (see
   * {@link #encodingFiles}).
   */
  private Encoder openEncoder(EncryptedOutputFile output, Partition partition, long knownRows) {
    RowIdParquetWriter[] idWriter = new RowIdParquetWriter[1];
    try {
      DataWriter<byte[]> writer = Parquet.writeData(output)
          .schema(rowIds ? RowIdParquetWriter.fileSchema(schema) : schema)
          .setAll(table.properties())
          .setAll(writerProperties)
          .setAll(DataFileProperties.bloomFilterRows(writerProperties, table.properties(),
              knownRows))
          .metricsConfig(MetricsConfig.forTable(table))
          .withSpec(spec)
          .withPartition(partition.key)
          .withKeyMetadata(output.keyMetadata())
          .createWriterFunc(type -> {
            if (!rowIds) {
              return PayloadParquetWriter.create(schema, type);
            }
            idWriter[0] = RowIdParquetWriter.create(schema, type);
            return idWriter[0];
          })
          .overwrite()
          .build();
      if (rowIds && idWriter[0] == null) {
        throw new IllegalStateException("Cannot write row ids into " + output
            .encryptingOutputFile().location() + ": the Parquet writer was not created");
      }
      return new Encoder(writer, idWriter[0]);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open a data file of table " + table.name(), e);
    }
  }

  /**
   * How many of the files hold a Parquet writer: those whose encoding began (a batch was handed
   * to a lane). Each holds buffers of its own besides its rows (a compression buffer of a page,
   * a bloom filter per key column: about 1 MB each by default), so files open their writer only
   * then, and a file whose rows are all staged costs its rows alone.
   */
  public int encodingFiles() {
    int encoding = 0;
    for (OpenFile file : byPath.values()) {
      if (file.dispatched > 0) {
        encoding++;
      }
    }
    return encoding;
  }

  /** Closes every file and returns them; call once, after the last write. */
  public List<DataFile> complete() throws InterruptedException {
    if (result == null) {
      List<OpenFile> all = all();
      dispatchAll(all);
      awaitLanes();
      List<DataFile> dataFiles = new ArrayList<>();
      for (OpenFile file : all) {
        dataFiles.add(file.encoder().writer().toDataFile());
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
      awaitLanes(); // nothing may touch the files while they are closed and deleted
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // the failure that brought us here; the files are deleted below either way
    }
    for (OpenFile file : all()) {
      if (file.encoder == null) {
        continue; // nothing was written
      }
      try {
        file.encoder.writer().close();
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
    List<OpenFile> all = new ArrayList<>();
    for (Partition partition : open.values()) {
      all.addAll(partition.files);
    }
    if (unpartitioned != null) {
      all.addAll(unpartitioned.files);
    }
    return all;
  }

  /** Where a record landed. */
  public record FilePosition(String path, long position) {}

  /**
   * A partition's open files, at most one per lane, and which of them takes the next row. The
   * partitions' first files go to the lanes in turn, so that the files of a table with several
   * partitions are encoded in parallel however they are staged.
   */
  private final class Partition {
    private final StructLike key;
    private final int firstLane;
    private final List<OpenFile> files = new ArrayList<>();
    private int next;

    private Partition(StructLike key, int opened) {
      this.key = key;
      this.firstLane = opened % lanes.size();
    }

    /**
     * The file for a new row: the first file, or, staged until complete, once the first has
     * {@link #LANE_ROWS} rows, one per lane in turn, each opened when it takes its first row.
     */
    OpenFile next() {
      boolean spread = staging == Staging.UNTIL_COMPLETE && !files.isEmpty()
          && files.get(0).rows.size() >= LANE_ROWS;
      int turns = spread ? lanes.size() : 1;
      if (next == files.size()) {
        files.add(newFile(this, lanes.get((firstLane + next) % lanes.size())));
      }
      OpenFile file = files.get(next);
      next = (next + 1) % turns;
      return file;
    }
  }

  /** A file's Parquet writer and, when the file carries row ids, its value writer. */
  private record Encoder(DataWriter<byte[]> writer, RowIdParquetWriter idWriter) {}

  private final class OpenFile {
    private final EncryptedOutputFile output;
    /** Opened on the lane by the first batch; touched by the lane only until it is awaited. */
    private Encoder encoder;
    /** The row id of every row at its position (staged and encoded), when the file has them. */
    private final LongList ids = new LongList();
    private final String path;
    private final Partition partition;
    private final BackgroundWrites lane;
    /** The staged rows, at their positions less {@link #dispatched}. */
    private List<byte[]> rows = new ArrayList<>();
    /** How many rows were handed to the lane: the position of the first staged row. */
    private long dispatched;
    /**
     * How many rows the file gets in all when its writer opens with all of them staged (its
     * bloom filters are sized for them), else -1; set before its first batch is handed over.
     */
    private long knownRows = -1;

    private OpenFile(EncryptedOutputFile output, Partition partition, BackgroundWrites lane) {
      this.output = output;
      this.path = output.encryptingOutputFile().location();
      this.partition = partition;
      this.lane = lane;
    }

    /** The file's writer, opened by the first call (on the lane). */
    Encoder encoder() {
      if (encoder == null) {
        encoder = openEncoder(output, partition, knownRows);
      }
      return encoder;
    }

    /** A copy of the ids of {@code count} rows from {@code from}, or null without ids. */
    long[] idsOf(long from, int count) {
      return rowIds ? ids.copyOf(Math.toIntExact(from), count) : null;
    }

    /** Encodes one batch, on the file's lane: each row with its id when the file has them. */
    void encode(List<byte[]> batch, long[] batchIds) {
      DataWriter<byte[]> writer = encoder().writer();
      if (batchIds == null) {
        batch.forEach(writer::write);
        return;
      }
      RowIdParquetWriter idWriter = encoder().idWriter();
      for (int i = 0; i < batch.size(); i++) {
        idWriter.nextRowId(batchIds[i]);
        writer.write(batch.get(i));
      }
    }
  }

  /** A growable array of longs (no box per row). */
  private static final class LongList {
    private long[] values = new long[16];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, values.length * 2);
      }
      values[size++] = value;
    }

    long get(int index) {
      return values[index];
    }

    int size() {
      return size;
    }

    long[] copyOf(int from, int count) {
      return Arrays.copyOfRange(values, from, from + count);
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
