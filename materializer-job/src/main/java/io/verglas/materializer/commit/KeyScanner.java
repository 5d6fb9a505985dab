package io.verglas.materializer.commit;

import io.verglas.materializer.delta.KeyRows;
import io.verglas.table.PrimaryKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads the primary keys and row positions of data files (only the key columns and
 * {@code _pos}), in any file format Iceberg's format registry reads.
 */
final class KeyScanner {
  /** Receives one row: its key identity and its position in the file. */
  @FunctionalInterface
  interface RowConsumer {
    void accept(ByteBuffer identity, long position);
  }

  private final Table table;
  private final Schema schema;
  private final List<Integer> keyFieldIds;
  private final Schema projection;

  KeyScanner(Table table, String tableName) {
    this.table = table;
    this.schema = table.schema();
    this.keyFieldIds = PrimaryKeys.fieldIds(schema);
    if (keyFieldIds.isEmpty()) {
      throw new IllegalStateException("Cannot look up rows by key in table " + tableName
          + ": it has no primary key (identifier fields)");
    }
    this.projection = TypeUtil.join(TypeUtil.select(schema, new HashSet<>(keyFieldIds)),
        new Schema(MetadataColumns.ROW_POSITION));
  }

  Schema schema() {
    return schema;
  }

  List<Integer> keyFieldIds() {
    return keyFieldIds;
  }

  /** Every live row of the task's file (its delete files applied) that may match {@code filter}. */
  void scanLive(FileScanTask task, Expression filter, RowConsumer consumer) {
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, projection);
    Schema read = deletes.requiredSchema();
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    try (CloseableIterable<Record> rows = deletes.filter(
        open(task.file().location(), task.file().format(), read, constants, filter))) {
      for (Record row : rows) {
        consumer.accept(KeyRows.identity(row, read, keyFieldIds), position(row));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read keys of data file " + task.file().location(), e);
    }
  }

  /**
   * The key payloads of the rows at {@code positions} (sorted) of a data file, read as written
   * (no deletes applied). Positions the file does not have are missing from the result.
   */
  Map<Long, byte[]> keysAt(String path, long[] positions) {
    FileFormat format = FileFormat.fromFileName(path);
    if (format == null) {
      throw new IllegalStateException("Cannot read keys of data file " + path
          + ": unknown file format");
    }
    Map<Long, byte[]> keys = new HashMap<>();
    KeyRows.Encoder payloads = new KeyRows.Encoder(schema);
    try (CloseableIterable<Record> rows =
        open(path, format, projection, Map.of(), Expressions.alwaysTrue())) {
      for (Record row : rows) {
        long position = position(row);
        if (Arrays.binarySearch(positions, position) >= 0) {
          keys.put(position, payloads.payload(row));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read keys of data file " + path, e);
    }
    return keys;
  }

  private CloseableIterable<Record> open(String path, FileFormat format, Schema read,
      Map<Integer, ?> constants, Expression filter) {
    ReadBuilder<Record, Object> builder =
        FormatModelRegistry.readBuilder(format, Record.class, table.io().newInputFile(path));
    builder.project(read);
    if (!constants.isEmpty()) {
      builder.idToConstant(constants);
    }
    if (filter != Expressions.alwaysTrue()) {
      builder.filter(filter);
    }
    return builder.build();
  }

  private static long position(Record row) {
    return (Long) row.getField(MetadataColumns.ROW_POSITION.name());
  }
}
