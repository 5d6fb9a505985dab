package io.verglas.materializer.delta;

import io.verglas.materializer.data.BackgroundWrites;
import io.verglas.materializer.data.PartitionedDataWriter;
import io.verglas.materializer.data.PayloadMigration;
import io.verglas.materializer.data.RowIdParquetWriter;
import io.verglas.materializer.keyindex.IndexedPaths;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.row.KeyRowWriter;
import io.verglas.row.RowDecoder;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;

/**
 * One table's share of the current checkpoint interval on one writer: its data files, open
 * across the interval's flushes (a flush adds rows to them instead of files of its own), the
 * rows to delete, and how far the consumed rows reach into each WAL segment. It ends in a
 * {@link TableDelta} at the barrier, or before: when the rows staged by all the writer's tables
 * hold more than half its byte bound, or when the table's schema or spec changed.
 *
 * <p>A key written again while its row is still staged takes that row's place
 * ({@link #replace}): the replaced version never reaches a file, gets no delete, and costs no
 * encoding. An interval staged {@link PartitionedDataWriter.Staging#UNTIL_COMPLETE until it
 * ends} holds every row until then, so no version replaced within it reaches a file; one staged
 * {@link PartitionedDataWriter.Staging#PER_BATCH per batch} encodes rows while it goes on.
 *
 * <p>It writes with the table's schema and partition spec as they were when it opened; a flush
 * that finds the table changed ends it and opens another ({@link #writesFor}), so rows read
 * with a newer schema never meet an older writer.
 */
public final class TableInterval implements Closeable {
  /** What a staged row holds on to besides its payload: the array's header and its list slot. */
  static final int STAGED_ROW_OVERHEAD = 24;

  public final String tableUuid;
  final String tableName;
  private final int schemaId;
  private final int specId;
  private final Table table;
  private final String location;
  private final int subtask;
  private final PartitionedDataWriter writer;
  private final PartitionedDataWriter.Staging staging;
  private final KeyRowWriter keys;
  private final Map<String, DeletedRows.Builder> deletes = new HashMap<>();
  private final Map<String, SegmentProgress> segments = new HashMap<>();
  /** Each open file's path (an instance per file) in the form the key index stores. */
  private final Map<String, String> indexedPaths = new HashMap<>();
  /** The other way round: each open file's path by the form the key index stores. */
  private final Map<String, String> openFiles = new HashMap<>();
  /** By schema id: how payloads encoded with another schema of the table become readable. */
  private final Map<Integer, UnaryOperator<byte[]>> migrations = new HashMap<>();
  private long writtenBytes;

  public TableInterval(String tableUuid, String tableName, Table table, int subtask, long attempt,
      List<BackgroundWrites> lanes, PartitionedDataWriter.Staging staging) {
    this.tableUuid = tableUuid;
    this.tableName = tableName;
    this.table = table;
    this.location = fileLocation(table);
    this.subtask = subtask;
    this.schemaId = table.schema().schemaId();
    this.specId = table.spec().specId();
    this.writer = new PartitionedDataWriter(table, subtask, attempt, lanes, staging);
    this.staging = staging;
    this.keys = KeyRows.payloadWriter(writer.schema());
  }

  /**
   * The table location in the form its file IO names files (a local warehouse's files are
   * {@code file:} URIs under a location that may be a bare path), so that a path stored relative
   * to it resolves to exactly the name the table's metadata holds.
   */
  private static String fileLocation(Table table) {
    String probe = "verglas-location";
    String base = IndexedPaths.prefix(table.location());
    String named = table.io().newOutputFile(base + probe).location();
    return named.endsWith("/" + probe) ? named.substring(0, named.length() - probe.length())
        : base;
  }

  /** Whether rows of {@code current} (the table as just loaded) may go to this interval's files. */
  public boolean writesFor(Table current) {
    return current.schema().schemaId() == schemaId && current.spec().specId() == specId;
  }

  /**
   * Stages a row's payload, encoded with schema {@code encodedWith} of the table (see
   * {@link #readable}); returns where it lands, the path in the form the key index stores
   * ({@link IndexedPaths}).
   *
   * @throws IllegalArgumentException if the payload cannot be read with the files' schema
   */
  public PartitionedDataWriter.FilePosition write(byte[] encoded, int encodedWith)
      throws InterruptedException {
    return write(encoded, encodedWith, RowIdParquetWriter.INHERITED);
  }

  /**
   * Stages a row as {@link #write(byte[], int)} does, with its {@code _row_id}
   * ({@link RowIdParquetWriter#INHERITED} for a new row; ignored unless
   * {@link #writesRowIds}).
   */
  public PartitionedDataWriter.FilePosition write(byte[] encoded, int encodedWith, long rowId)
      throws InterruptedException {
    byte[] payload = readable(encoded, encodedWith);
    PartitionedDataWriter.FilePosition at = writer.write(payload, rowId);
    // Staged to the end, the rows themselves are held; otherwise the Parquet writers' buffers,
    // about as large as the payloads.
    writtenBytes += payload.length
        + (staging == PartitionedDataWriter.Staging.UNTIL_COMPLETE ? STAGED_ROW_OVERHEAD : 0);
    String indexed = indexedPaths.get(at.path());
    if (indexed == null) {
      indexed = IndexedPaths.relativize(location, at.path());
      indexedPaths.put(at.path(), indexed);
      openFiles.put(indexed, at.path());
    }
    return new PartitionedDataWriter.FilePosition(indexed, at.position());
  }

  /** Whether the interval's files carry {@code _row_id} (format version 3 and later). */
  public boolean writesRowIds() {
    return writer.writesRowIds();
  }

  /**
   * The row id written at {@code position} of {@code dataFile} (as the key index stores it) when
   * that is one of this interval's files ({@link RowIdParquetWriter#INHERITED} for a null), else
   * {@link RowIdParquetWriter#UNKNOWN}.
   */
  public long rowIdAt(String dataFile, long position) {
    String path = openFiles.get(dataFile);
    return path == null ? RowIdParquetWriter.UNKNOWN : writer.rowIdAt(path, position);
  }

  /** The table as loaded when the interval opened (refreshed by later loads). */
  public Table table() {
    return table;
  }

  /** The row of a payload encoded with schema {@code encodedWith}, decoded (a rare path). */
  public Record decode(byte[] encoded, int encodedWith) {
    return new RowDecoder(writer.schema()).decode(readable(encoded, encodedWith));
  }

  /** A data file's full path from the form the key index stores. */
  public String resolve(String dataFile) {
    return IndexedPaths.resolve(location, dataFile);
  }

  /**
   * The row ids of the interval's files, by path in the form the key index stores; after
   * {@link #complete}.
   */
  public Map<String, long[]> writtenRowIds() {
    Map<String, long[]> written = new HashMap<>();
    writer.writtenRowIds().forEach((path, ids) -> written.put(indexedPaths.get(path), ids));
    return written;
  }

  /**
   * Puts a newer version of a key in place of the version this interval staged at
   * {@code position} of {@code dataFile} (as the key index stores it), so that the replaced
   * version never reaches a file; returns false, changing nothing, when that version is not
   * staged here (an earlier interval's file) or the new one belongs to another partition.
   *
   * @throws IllegalArgumentException if the payload cannot be read with the files' schema
   */
  public boolean replace(String dataFile, long position, byte[] encoded, int encodedWith) {
    String path = openFiles.get(dataFile);
    if (path == null) {
      return false;
    }
    byte[] payload = readable(encoded, encodedWith);
    byte[] replaced = writer.replace(path, position, payload);
    if (replaced == null) {
      return false;
    }
    writtenBytes += payload.length - replaced.length;
    return true;
  }

  /**
   * The payload in the schema the files are written with, from one encoded with schema
   * {@code encodedWith} of the table ({@link PayloadMigration}).
   */
  private byte[] readable(byte[] encoded, int encodedWith) {
    if (encodedWith == schemaId) {
      return encoded;
    }
    return migrations.computeIfAbsent(encodedWith, id -> {
      Schema from = table.schemas().get(id);
      if (from == null) {
        throw new IllegalStateException("Cannot write a row of table " + tableName
            + ": it was read with schema " + id + ", which the table does not know");
      }
      return PayloadMigration.between(from, writer.schema());
    }).apply(encoded);
  }

  /**
   * Deletes the row at {@code position} of {@code dataFile} (as the key index stores it), whose
   * primary key is {@code key}.
   */
  public void delete(String dataFile, long position, byte[] key) {
    deletes.computeIfAbsent(dataFile, path -> DeletedRows.builder())
        .add(position, keys.write(key));
  }

  /** Records the WAL progress of a flushed buffer's rows (all consumed, losers included). */
  public void consumed(Map<String, SegmentProgress> progress) {
    progress.forEach((key, reached) -> segments.merge(key, reached, SegmentProgress::max));
  }

  /** How many rows the interval wrote, and how many of them a later version replaced. */
  public PartitionedDataWriter.Replacements replacements() {
    return writer.replacements();
  }

  /** What the interval's rows hold in memory until its files close (payloads and overhead). */
  public long writtenBytes() {
    return writtenBytes;
  }

  /**
   * What the interval holds in memory until its files close: its rows ({@link #writtenBytes})
   * and {@code encodingFileBytes} for each file whose Parquet writer is open
   * ({@link PartitionedDataWriter#encodingFiles}).
   */
  public long heldBytes(long encodingFileBytes) {
    return writtenBytes + writer.encodingFiles() * encodingFileBytes;
  }

  /**
   * Writes the staged rows into the files and closes them (on the encoding lanes, waiting
   * for it) and returns the interval's delta.
   */
  public TableDelta complete() throws InterruptedException {
    List<DataFile> dataFiles = writer.complete();
    List<String> fileJson = new ArrayList<>(dataFiles.size());
    for (DataFile file : dataFiles) {
      fileJson.add(ContentFileParser.toJson(file, table.specs().get(file.specId())));
    }
    Map<String, DeletedRows> deletedRows = new HashMap<>();
    // An entry written before paths were stored relative names its file in full: both forms
    // of one file merge here.
    deletes.forEach((stored, rows) -> deletedRows.merge(IndexedPaths.resolve(location, stored),
        rows.build(), DeletedRows::union));
    return new TableDelta(tableUuid, tableName, -1, subtask, fileJson, deletedRows, segments);
  }

  /** Abandons the interval: its files are closed and deleted (nothing will commit them). */
  @Override
  public void close() {
    writer.close();
  }
}
