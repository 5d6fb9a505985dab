package io.verglas.query.http;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.arrow.ColumnWriter;
import io.verglas.arrow.UnsupportedTypeException;
import io.verglas.query.QueryException;
import io.verglas.query.QueryResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Types;

/**
 * A scan's or lookup's answer as an Arrow IPC stream ({@value #MEDIA_TYPE}): the answer's columns
 * in order with the Arrow types Verglas maps Iceberg's to (those of ingest), one record batch,
 * uncompressed (any Arrow reader takes it). What the JSON answer says beside its rows travels in
 * the schema's metadata: {@code verglas.kind}, {@code verglas.table}, {@code verglas.snapshot}
 * (absent for a table without one) and {@code verglas.truncated}.
 */
final class ArrowAnswer {
  static final String MEDIA_TYPE = "application/vnd.apache.arrow.stream";

  private ArrowAnswer() {}

  /** The answer's stream; 406 for kinds that answer no table or columns Arrow answers cannot carry. */
  static byte[] encode(QueryResult result, BufferAllocator allocator) {
    if (result.rowSchema() == null) {
      throw new QueryException(406, "Cannot answer a " + result.kind() + " query as " + MEDIA_TYPE
          + ": only scan and lookup answers are tables; ask for application/json");
    }
    Schema schema = schema(result);
    try (BufferAllocator answer = allocator.newChildAllocator("query-answer", 0, allocator.getLimit());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, answer)) {
      fill(root, result.rowValues());
      return write(root);
    }
  }

  private static Schema schema(QueryResult result) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField column : result.rowSchema().columns()) {
      try {
        fields.add(ArrowSchemas.toArrow(column));
      } catch (UnsupportedTypeException e) {
        throw new QueryException(406, "Cannot answer as " + MEDIA_TYPE + ": column " + column.name()
            + " has type " + column.type() + ", which Arrow answers do not carry yet; select other"
            + " columns or ask for application/json");
      }
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("verglas.kind", result.kind());
    metadata.put("verglas.table", result.table());
    if (result.snapshotId() != null) {
      metadata.put("verglas.snapshot", Long.toString(result.snapshotId()));
    }
    metadata.put("verglas.truncated", Boolean.toString(result.truncated()));
    return new Schema(fields, metadata);
  }

  private static void fill(VectorSchemaRoot root, List<Object[]> rows) {
    List<FieldVector> vectors = root.getFieldVectors();
    ColumnWriter[] writers = new ColumnWriter[vectors.size()];
    for (int c = 0; c < writers.length; c++) {
      writers[c] = ColumnWriter.forField(vectors.get(c).getField());
      vectors.get(c).setInitialCapacity(rows.size());
      vectors.get(c).allocateNew();
    }
    for (int r = 0; r < rows.size(); r++) {
      Object[] row = rows.get(r);
      for (int c = 0; c < writers.length; c++) {
        writers[c].write(vectors.get(c), r, writers[c].convert(row[c]));
      }
    }
    root.setRowCount(rows.size());
  }

  private static byte[] write(VectorSchemaRoot root) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the Arrow answer", e);
    }
    return bytes.toByteArray();
  }
}
