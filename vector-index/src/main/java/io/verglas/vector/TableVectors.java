package io.verglas.vector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Reads a table's vector column at one snapshot with Iceberg's generic reader, deletes applied
 * (deletion vectors, position and equality deletes alike), so a deleted row is never read. Each
 * vector comes with its row's data file and position. Rows whose vector is null are skipped.
 */
public final class TableVectors {
  private TableVectors() {}

  public static SnapshotVectors read(Table table, long snapshotId) {
    return read(table, snapshotId, VectorColumn.of(table));
  }

  public static SnapshotVectors read(Table table, long snapshotId, VectorColumn column) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalArgumentException("Cannot read vectors of " + table.name()
          + ": no snapshot " + snapshotId);
    }
    Schema projection = new Schema(table.schema().findField(column.fieldId()),
        MetadataColumns.FILE_PATH, MetadataColumns.ROW_POSITION);
    List<float[]> vectors = new ArrayList<>();
    List<RowRef> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).useSnapshot(snapshotId)
        .project(projection).build()) {
      for (Record record : records) {
        Object value = record.get(0);
        if (value != null) {
          vectors.add(toFloats(value, column));
          rows.add(new RowRef(record.get(1).toString(), (Long) record.get(2)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read vectors of " + table.name(), e);
    }
    return new SnapshotVectors(snapshotId, snapshot.sequenceNumber(), column, vectors,
        OrdinalMap.of(rows));
  }

  static float[] toFloats(Object value, VectorColumn column) {
    float[] vector = new float[column.dimension()];
    if (value instanceof ByteBuffer bytes) {
      bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
      return vector;
    }
    if (value instanceof byte[] bytes) {
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
      return vector;
    }
    List<?> list = (List<?>) value;
    if (list.size() != vector.length) {
      throw new IllegalArgumentException("Cannot read vector: " + list.size()
          + " elements in column " + column.name() + ", dimension is " + vector.length);
    }
    for (int i = 0; i < vector.length; i++) {
      vector[i] = (Float) list.get(i);
    }
    return vector;
  }
}
