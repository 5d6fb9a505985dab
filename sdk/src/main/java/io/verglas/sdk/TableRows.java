package io.verglas.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.protocol.IngestProtocol;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Rows of one table from Java maps (column name → value) and Java records (each component is the
 * column of its name), checked before anything is sent: a field that names no column, a value of
 * the wrong type, and a missing required column (a column the table declares required, or for a
 * delete a primary-key column) are each an {@link IllegalArgumentException} naming the row
 * (counted from 0 across every batch of this builder), the column and what was wrong; nothing of
 * a rejected row is added. Values convert as {@link RowBatchBuilder} converts them; a record's
 * {@code Optional} component is its value or null.
 *
 * <p>A map whose {@code _op} is {@code "D"} is a delete (only the key is needed).
 * {@link #build()} hands the rows added so far over as one batch (the caller closes it).
 */
public final class TableRows implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RowBatchBuilder batch;
  private final Set<String> columns;
  private final List<String> required;
  private final List<String> primaryKey;
  private int rowsAdded;

  private TableRows(Schema tableSchema, BufferAllocator allocator) {
    this.batch = RowBatchBuilder.forSchema(tableSchema, allocator);
    this.columns = batch.schema().getFields().stream().map(Field::getName)
        .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    this.required = tableSchema.getFields().stream().filter(f -> !f.isNullable())
        .map(Field::getName).toList();
    this.primaryKey = primaryKey(tableSchema);
  }

  /** Rows for the table schema a server gives ({@link VerglasClient#tableSchema}). */
  public static TableRows forSchema(Schema tableSchema, BufferAllocator allocator) {
    return new TableRows(Objects.requireNonNull(tableSchema, "tableSchema"),
        Objects.requireNonNull(allocator, "allocator"));
  }

  /** Adds one row: a {@code Map<String, ?>} or a {@link Record}. */
  public TableRows add(Object row) {
    Map<String, ?> values = values(Objects.requireNonNull(row, "row"));
    boolean delete = IngestProtocol.OP_DELETE.equals(String.valueOf(values.get(IngestProtocol.OP_COLUMN)));
    for (String column : delete ? primaryKey : required) {
      if (values.get(column) == null) {
        throw new IllegalArgumentException("Cannot add row " + rowsAdded + ": missing required column '"
            + column + "'" + (delete ? " (a delete names its primary key)" : ""));
      }
    }
    batch.add(values);
    rowsAdded++;
    return this;
  }

  /** Adds every row of {@code rows}, in order. */
  public TableRows addAll(Iterable<?> rows) {
    rows.forEach(this::add);
    return this;
  }

  /** Rows added since the last {@link #build()}. */
  public int rowCount() {
    return batch.rowCount();
  }

  public VectorSchemaRoot build() {
    return batch.build();
  }

  @Override
  public void close() {
    batch.close();
  }

  private Map<String, ?> values(Object row) {
    if (row instanceof Map<?, ?> map) {
      for (Object key : map.keySet()) {
        if (!(key instanceof String)) {
          throw new IllegalArgumentException("Cannot add row " + rowsAdded + ": column names must be"
              + " strings, got " + key);
        }
      }
      @SuppressWarnings("unchecked")
      Map<String, ?> values = (Map<String, ?>) map;
      return values;
    }
    if (row instanceof Record record) {
      return recordValues(record);
    }
    throw new IllegalArgumentException("Cannot add row " + rowsAdded + ": a row is a Map or a"
        + " record, not " + row.getClass().getName());
  }

  private Map<String, Object> recordValues(Record record) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (RecordComponent component : record.getClass().getRecordComponents()) {
      if (!columns.contains(component.getName())) {
        throw new IllegalArgumentException("Cannot add row " + rowsAdded + ": unknown field '"
            + component.getName() + "' of " + record.getClass().getSimpleName() + " (columns: "
            + String.join(", ", columns) + ")");
      }
      values.put(component.getName(), componentValue(record, component));
    }
    return values;
  }

  private Object componentValue(Record record, RecordComponent component) {
    try {
      component.getAccessor().setAccessible(true);
      Object value = component.getAccessor().invoke(record);
      return value instanceof Optional<?> optional ? optional.orElse(null) : value;
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      throw new IllegalArgumentException("Cannot add row " + rowsAdded + ": cannot read field '"
          + component.getName() + "' of " + record.getClass().getSimpleName() + ": " + e, e);
    }
  }

  private static List<String> primaryKey(Schema tableSchema) {
    String key = tableSchema.getCustomMetadata().get(IngestProtocol.SCHEMA_PRIMARY_KEY);
    List<String> columns = new ArrayList<>();
    if (key != null) {
      try {
        JSON.readTree(key).forEach((JsonNode column) -> columns.add(column.asText()));
      } catch (IOException e) {
        throw new IllegalArgumentException("Cannot read the primary key of the schema: " + key, e);
      }
    }
    return columns;
  }
}
