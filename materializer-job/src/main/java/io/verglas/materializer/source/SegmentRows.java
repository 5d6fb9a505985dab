package io.verglas.materializer.source;

import io.verglas.arrow.ArrowIpc;
import io.verglas.arrow.ArrowSchemas;
import io.verglas.arrow.ArrowValues;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.row.ArrowRowEncoder;
import io.verglas.table.PrimaryKeys;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentHeader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Turns the batches of one decoded segment into {@link WalRow}s, one batch per call, in the
 * table's current schema.
 *
 * <p>Columns are matched by name (then case-insensitively), so a column added to the table after
 * the segment was written reads as null. Rows below {@code skipBelow} (emitted before a restore)
 * and rows the table's snapshot summary already records as committed are skipped; a batch that
 * lies wholly below the restore point is not even decoded.
 */
final class SegmentRows {
  private final String segmentKey;
  private final WalSegment segment;
  private final String tableUuid;
  private final String tableName;
  private final Schema schema;
  private final List<Integer> keyFieldIds;
  private final WalMark committed;
  private final long skipBelow;
  private final BufferAllocator allocator;
  private final long[] firstOrdinal;
  private final long rowCount;
  private int nextBatch;

  SegmentRows(String segmentKey, WalSegment segment, Schema schema, WalMark committed,
      long skipBelow, BufferAllocator allocator) {
    this.segmentKey = segmentKey;
    this.segment = segment;
    WalSegmentHeader header = segment.header();
    this.tableUuid = header.tableUuid();
    this.tableName = VerglasTables.name(header.tableName());
    this.schema = schema;
    this.keyFieldIds = PrimaryKeys.fieldIds(schema);
    this.committed = committed;
    this.skipBelow = skipBelow;
    this.allocator = allocator;
    this.firstOrdinal = new long[segment.batches().size()];
    this.rowCount = countRows(segment, firstOrdinal);
  }

  /** The number of rows in the segment, filling in where each batch starts. */
  static long countRows(WalSegment segment, long[] firstOrdinal) {
    long total = 0;
    for (int i = 0; i < segment.batches().size(); i++) {
      if (firstOrdinal != null) {
        firstOrdinal[i] = total;
      }
      total += segment.batches().get(i).rowCount();
    }
    return total;
  }

  long rowCount() {
    return rowCount;
  }

  boolean hasNext() {
    return nextBatch < segment.batches().size();
  }

  List<WalRow> next() {
    int index = nextBatch++;
    WalBatch batch = segment.batches().get(index);
    long first = firstOrdinal[index];
    if (first + batch.rowCount() <= skipBelow) {
      return List.of();
    }
    List<WalRow> rows = new ArrayList<>(batch.rowCount());
    try (ArrowStreamReader reader = ArrowIpc.open(batch.arrowIpc(), allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      int rowInBatch = 0;
      while (reader.loadNextBatch()) {
        Columns columns = bind(root);
        for (int r = 0; r < root.getRowCount(); r++, rowInBatch++) {
          long ordinal = first + rowInBatch;
          boolean skip = ordinal < skipBelow
              || committed.covers(segment.header().sequence(), ordinal);
          if (rowInBatch < batch.rowCount() && !skip) {
            rows.add(toRow(columns, r, batch, index, rowInBatch, ordinal));
          }
        }
      }
      if (rowInBatch != batch.rowCount()) {
        throw new CorruptSegmentException("Cannot read WAL segment " + segmentKey + ": batch "
            + index + " declares " + batch.rowCount() + " rows but holds " + rowInBatch);
      }
    } catch (IOException e) {
      throw new CorruptSegmentException("Cannot read WAL segment " + segmentKey + ": batch "
          + index + " is not a valid Arrow IPC stream: " + e.getMessage(), e);
    }
    return rows;
  }

  private WalRow toRow(Columns columns, int r, WalBatch batch, int batchIndex, int rowInBatch,
      long ordinal) {
    WalRow row = new WalRow();
    row.tableUuid = tableUuid;
    row.tableName = tableName;
    row.op = op(columns, r, batchIndex, rowInBatch);
    row.hlc = batch.hlc();
    row.streamId = segment.header().streamId();
    row.sequence = segment.header().sequence();
    row.batch = batchIndex;
    row.row = rowInBatch;
    row.ordinal = ordinal;
    row.segmentRowCount = rowCount;
    row.segmentKey = segmentKey;
    row.payload = columns.encoder.payload(r);
    row.schemaId = schema.schemaId();
    if (keyFieldIds.isEmpty()) {
      row.routingKey = tableUuid + "/" + row.streamId + "/" + row.sequence;
    } else {
      try {
        row.key = columns.encoder.key(r);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("Cannot read WAL segment " + segmentKey + ": batch "
            + batchIndex + " row " + rowInBatch + ": " + e.getMessage(), e);
      }
      row.routingKey = WalRow.keyedRoutingKey(tableUuid, row.key);
    }
    return row;
  }

  private byte op(Columns columns, int r, int batchIndex, int rowInBatch) {
    if (columns.op == null) {
      return WalRow.UPSERT;
    }
    Object value = columns.op.apply(r);
    if (value == null || "U".equals(value)) {
      return WalRow.UPSERT;
    } else if ("D".equals(value)) {
      return WalRow.DELETE;
    }
    throw new IllegalStateException("Cannot read WAL segment " + segmentKey + ": batch "
        + batchIndex + " row " + rowInBatch + " has " + ArrowSchemas.OP_COLUMN + " '" + value
        + "' (expected 'U', 'D' or null)");
  }

  private Columns bind(VectorSchemaRoot root) {
    List<FieldVector> vectors = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      FieldVector vector = find(root, column.name());
      vectors.add(vector);
      if (vector == null) {
        continue;
      }
      Optional<String> problem =
          ArrowSchemas.incompatibility(vector.getField(), column.type());
      if (problem.isPresent()) {
        throw new IllegalStateException("Cannot read WAL segment " + segmentKey + ": column '"
            + column.name() + "' " + problem.get());
      }
    }
    FieldVector opVector = root.getVector(ArrowSchemas.OP_COLUMN);
    IntFunction<Object> op = null;
    if (opVector != null) {
      Optional<String> problem =
          ArrowSchemas.incompatibility(opVector.getField().getType(), Types.StringType.get());
      if (problem.isPresent()) {
        throw new IllegalStateException("Cannot read WAL segment " + segmentKey + ": column '"
            + ArrowSchemas.OP_COLUMN + "' " + problem.get());
      }
      op = ArrowValues.reader(opVector, Types.StringType.get());
    }
    return new Columns(ArrowRowEncoder.bind(schema, keyFieldIds, vectors), op);
  }

  private static FieldVector find(VectorSchemaRoot root, String name) {
    FieldVector exact = root.getVector(name);
    if (exact != null) {
      return exact;
    }
    for (FieldVector vector : root.getFieldVectors()) {
      if (vector.getName().equalsIgnoreCase(name)) {
        return vector;
      }
    }
    return null;
  }

  private record Columns(ArrowRowEncoder encoder, IntFunction<Object> op) {}
}
