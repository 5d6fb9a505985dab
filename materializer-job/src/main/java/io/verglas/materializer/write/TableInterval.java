package io.verglas.materializer.write;

import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.row.KeyRowWriter;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;

/**
 * One table's share of the current checkpoint interval on one writer: its data files, open
 * across the interval's flushes (a flush adds rows to them instead of files of its own), the
 * rows to delete, and how far the consumed rows reach into each WAL segment. It ends in a
 * {@link TableDelta} at the barrier, or before: when the open files of all the writer's tables
 * hold more than half its byte bound, or when the table's schema or spec changed.
 *
 * <p>It writes with the table's schema and partition spec as they were when it opened; a flush
 * that finds the table changed ends it and opens another ({@link #writesFor}), so rows read
 * with a newer schema never meet an older writer.
 */
final class TableInterval implements Closeable {
  final String tableUuid;
  final String tableName;
  private final int schemaId;
  private final int specId;
  private final Table table;
  private final String location;
  private final int subtask;
  private final PartitionedDataWriter writer;
  private final KeyRowWriter keys;
  private final Map<String, DeletedRows.Builder> deletes = new HashMap<>();
  private final Map<String, SegmentProgress> segments = new HashMap<>();
  /** Each open file's path (an instance per file) in the form the key index stores. */
  private final Map<String, String> indexedPaths = new HashMap<>();
  private long writtenBytes;

  TableInterval(String tableUuid, String tableName, Table table, int subtask, long attempt,
      BackgroundWrites background) {
    this.tableUuid = tableUuid;
    this.tableName = tableName;
    this.table = table;
    this.location = fileLocation(table);
    this.subtask = subtask;
    this.schemaId = table.schema().schemaId();
    this.specId = table.spec().specId();
    this.writer = new PartitionedDataWriter(table, subtask, attempt, background);
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
  boolean writesFor(Table current) {
    return current.schema().schemaId() == schemaId && current.spec().specId() == specId;
  }

  /**
   * Writes a row's payload (with the schema the files are written with); returns where it
   * lands, the path in the form the key index stores ({@link IndexedPaths}).
   *
   * @throws IllegalArgumentException if the payload cannot be read with that schema
   */
  PartitionedDataWriter.FilePosition write(byte[] payload) throws InterruptedException {
    PartitionedDataWriter.FilePosition at = writer.write(payload);
    writtenBytes += payload.length;
    String indexed = indexedPaths.computeIfAbsent(at.path(),
        path -> IndexedPaths.relativize(location, path));
    return new PartitionedDataWriter.FilePosition(indexed, at.position());
  }

  /**
   * Deletes the row at {@code position} of {@code dataFile} (as the key index stores it), whose
   * primary key is {@code key}.
   */
  void delete(String dataFile, long position, byte[] key) {
    deletes.computeIfAbsent(dataFile, path -> DeletedRows.builder())
        .add(position, keys.write(key));
  }

  /** Records the WAL progress of a flushed buffer's rows (all consumed, losers included). */
  void consumed(Map<String, SegmentProgress> progress) {
    progress.forEach((key, reached) -> segments.merge(key, reached, SegmentProgress::max));
  }

  /** Payload bytes written to this interval's files: what their writers may hold in memory. */
  long writtenBytes() {
    return writtenBytes;
  }

  /** Closes the files (waiting for their background writes) and returns the interval's delta. */
  TableDelta complete() throws InterruptedException {
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
