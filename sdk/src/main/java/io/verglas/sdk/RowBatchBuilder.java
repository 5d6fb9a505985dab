package io.verglas.sdk;

import io.verglas.arrow.ColumnWriter;
import io.verglas.protocol.IngestProtocol;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds Arrow batches for one table from rows given as {@code Map<String, Object>} (column name
 * → Java value), e.g. rows parsed from CSV or JSON lines.
 *
 * <p>The batch has every column of the table's Arrow schema (from
 * {@link VerglasClient#tableSchema}) plus {@code _op}; a column missing from a row is null.
 * Every field is declared nullable, because a delete row carries only its primary key; the
 * server still rejects nulls where the table forbids them. Values are the natural Java types
 * (Integer, Long, Float, Double, Boolean, String, LocalDate, LocalTime, Instant /
 * OffsetDateTime / ZonedDateTime for timestamps with a zone, LocalDateTime for those without,
 * BigDecimal, UUID, byte[] / ByteBuffer) or ISO-8601 / decimal strings.
 *
 * <p>A row with a bad value or an unknown column is rejected with an
 * {@link IllegalArgumentException} naming the row (counted from 0 across every batch of this
 * builder) and the column, and nothing of it is added.
 * {@link #build()} hands the batch over (the caller closes it) and starts a new one.
 */
public final class RowBatchBuilder implements AutoCloseable {
  private final Schema schema;
  private final BufferAllocator allocator;
  private final Map<String, Integer> columnIndex = new LinkedHashMap<>();
  private final List<ColumnWriter> writers = new ArrayList<>();
  private final int opIndex;
  private VectorSchemaRoot root;
  private int rows;
  private int rowsBuilt;

  private RowBatchBuilder(Schema tableSchema, BufferAllocator allocator) {
    List<Field> fields = new ArrayList<>();
    for (Field field : tableSchema.getFields()) {
      fields.add(nullable(field));
    }
    boolean hasOp = tableSchema.getFields().stream()
        .anyMatch(f -> f.getName().equals(IngestProtocol.OP_COLUMN));
    if (!hasOp) {
      fields.add(Field.nullable(IngestProtocol.OP_COLUMN, ArrowType.Utf8.INSTANCE));
    }
    this.schema = new Schema(fields, tableSchema.getCustomMetadata());
    this.allocator = allocator;
    for (Field field : fields) {
      if (columnIndex.putIfAbsent(field.getName(), writers.size()) != null) {
        throw new IllegalArgumentException("Cannot build rows: column '" + field.getName()
            + "' appears twice in the schema");
      }
      writers.add(ColumnWriter.forField(field));
    }
    this.opIndex = columnIndex.get(IngestProtocol.OP_COLUMN);
  }

  /** A builder for batches of the given table schema (as returned by GetSchema). */
  public static RowBatchBuilder forSchema(Schema tableSchema, BufferAllocator allocator) {
    return new RowBatchBuilder(Objects.requireNonNull(tableSchema, "tableSchema"),
        Objects.requireNonNull(allocator, "allocator"));
  }

  /** The schema of the batches this builder makes: the table's columns, nullable, plus _op. */
  public Schema schema() {
    return schema;
  }

  /** Adds an upsert row, or a delete if the row's {@code _op} is "D". */
  public RowBatchBuilder add(Map<String, ?> row) {
    Object[] converted = convert(row);
    write(converted);
    return this;
  }

  /** Adds a delete of the row with this primary key (other columns given are sent as well). */
  public RowBatchBuilder delete(Map<String, ?> key) {
    Map<String, Object> row = new LinkedHashMap<>(key);
    row.put(IngestProtocol.OP_COLUMN, IngestProtocol.OP_DELETE);
    return add(row);
  }

  /** Rows added since the last {@link #build()}. */
  public int rowCount() {
    return rows;
  }

  /** Hands over the rows added so far as one batch (possibly empty); the caller closes it. */
  public VectorSchemaRoot build() {
    VectorSchemaRoot batch = root();
    batch.setRowCount(rows);
    rowsBuilt += rows;
    root = null;
    rows = 0;
    return batch;
  }

  /** Releases rows added but not built. */
  @Override
  public void close() {
    if (root != null) {
      root.close();
      root = null;
      rows = 0;
    }
  }

  private Object[] convert(Map<String, ?> row) {
    int rowNumber = rowsBuilt + rows;
    Object[] converted = new Object[writers.size()];
    for (Map.Entry<String, ?> cell : row.entrySet()) {
      Integer index = columnIndex.get(cell.getKey());
      if (index == null) {
        throw new IllegalArgumentException("Cannot add row " + rowNumber + ": unknown column '"
            + cell.getKey() + "' (columns: " + String.join(", ", columnIndex.keySet()) + ")");
      }
      try {
        converted[index] = writers.get(index).convert(cell.getValue());
      } catch (IllegalArgumentException | ArithmeticException | ClassCastException e) {
        throw new IllegalArgumentException("Cannot add row " + rowNumber + ": column '"
            + cell.getKey() + "': " + e.getMessage(), e);
      }
    }
    Object op = converted[opIndex];
    if (op != null) {
      String text = new String((byte[]) op, java.nio.charset.StandardCharsets.UTF_8);
      if (!text.equals(IngestProtocol.OP_UPSERT) && !text.equals(IngestProtocol.OP_DELETE)) {
        throw new IllegalArgumentException("Cannot add row " + rowNumber + ": column '"
            + IngestProtocol.OP_COLUMN + "': expected 'U' or 'D' but got '" + text + "'");
      }
    }
    return converted;
  }

  private void write(Object[] converted) {
    VectorSchemaRoot batch = root();
    for (int i = 0; i < converted.length; i++) {
      writers.get(i).write(batch.getVector(i), rows, converted[i]);
    }
    rows++;
  }

  private VectorSchemaRoot root() {
    if (root == null) {
      root = VectorSchemaRoot.create(schema, allocator);
      root.allocateNew();
    }
    return root;
  }

  private static Field nullable(Field field) {
    FieldType type = field.getFieldType();
    return new Field(field.getName(),
        new FieldType(true, type.getType(), type.getDictionary(), type.getMetadata()),
        field.getChildren());
  }
}
