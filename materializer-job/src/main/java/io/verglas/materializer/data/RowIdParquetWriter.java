package io.verglas.materializer.data;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.TypeUtil;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.MessageType;

/**
 * Writes WAL row payloads followed by the row-lineage column {@code _row_id} (format version 3):
 * the payload's columns as {@link PayloadParquetWriter} writes them, then the row's id, set by
 * {@link #nextRowId} before each row (the one thread that encodes a file does both), or a null.
 *
 * <p>A null inherits: a reader takes the data file's {@code first_row_id} plus the row's
 * position, so a row of a new key needs no id of its own. A new version of an existing key
 * carries its key's id. {@code _last_updated_sequence_number} is not written: every row of a
 * file the materializer adds changed in the commit that adds it, whose sequence number a null
 * inherits.
 */
public final class RowIdParquetWriter implements ParquetValueWriter<byte[]> {
  /** The id of a row that inherits its id (a null in the file). */
  public static final long INHERITED = -1;

  /** Stands for "no such row here": the row id is to be found elsewhere. */
  public static final long UNKNOWN = -2;

  private final ParquetValueWriter<byte[]> payload;
  private final ParquetValueWriter<?> rowIdWriter;
  private final TripleWriter<?> rowIds;
  private final int nullLevel;
  private long next = INHERITED;

  private RowIdParquetWriter(ParquetValueWriter<byte[]> payload, ColumnDescriptor rowId) {
    this.payload = payload;
    this.rowIdWriter = ParquetValueWriters.unboxed(rowId);
    this.rowIds = rowIdWriter.columns().get(0);
    this.nullLevel = rowId.getMaxDefinitionLevel() - 1;
  }

  /** The schema of files with lineage: {@code schema}'s columns, then {@code _row_id}. */
  static Schema fileSchema(Schema schema) {
    return TypeUtil.join(schema, new Schema(MetadataColumns.ROW_ID));
  }

  /**
   * The writer of {@code schema}'s payloads into files of {@code fileType} (Iceberg's conversion
   * of {@link #fileSchema}: the payload's columns, then {@code _row_id}).
   */
  static RowIdParquetWriter create(Schema schema, MessageType fileType) {
    int columns = schema.columns().size();
    if (fileType.getFieldCount() != columns + 1
        || fileType.getType(columns).getId().intValue() != MetadataColumns.ROW_ID.fieldId()) {
      throw new IllegalArgumentException("Cannot write row ids into " + fileType
          + ": its last column is not " + MetadataColumns.ROW_ID.name());
    }
    MessageType payloadType = new MessageType(fileType.getName(),
        fileType.getFields().subList(0, columns));
    // by path: a list or struct column has more than one leaf column before it
    return new RowIdParquetWriter(PayloadParquetWriter.create(schema, payloadType),
        fileType.getColumnDescription(new String[] {fileType.getType(columns).getName()}));
  }

  /** The id of the next row written, or {@link #INHERITED}. */
  void nextRowId(long rowId) {
    next = rowId;
  }

  @Override
  public void write(int repetitionLevel, byte[] row) {
    payload.write(repetitionLevel, row);
    if (next >= 0) {
      rowIds.writeLong(repetitionLevel, next);
    } else {
      rowIds.writeNull(repetitionLevel, nullLevel);
    }
    next = INHERITED;
  }

  @Override
  public List<TripleWriter<?>> columns() {
    List<TripleWriter<?>> columns = new ArrayList<>(payload.columns());
    columns.add(rowIds);
    return columns;
  }

  @Override
  public void setColumnStore(ColumnWriteStore columnStore) {
    payload.setColumnStore(columnStore);
    rowIdWriter.setColumnStore(columnStore);
  }

  @Override
  public Stream<FieldMetrics<?>> metrics() {
    return payload.metrics();
  }
}
