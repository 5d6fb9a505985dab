package io.verglas.query;

import io.verglas.query.graph.Traversal;
import io.verglas.vector.RowRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Reads rows of one snapshot with Iceberg's generic reader, which prunes partitions, manifests
 * and files by their metadata, row groups by their statistics, dictionaries and bloom filters,
 * and applies deletion vectors and delete files; every byte comes through the table's FileIO
 * (the cache node's own S3 surface). Checks columns and expressions against the snapshot's
 * schema first, so a mistake is a precise 400, and stops at the deadline.
 */
final class TableReads implements Traversal.EdgeReads {
  private static final int DEADLINE_CHECK_ROWS = 256;

  private final Table table;
  private final Snapshot snapshot;
  private final long deadlineNanos;

  TableReads(Table table, Snapshot snapshot, long deadlineNanos) {
    this.table = table;
    this.snapshot = snapshot;
    this.deadlineNanos = deadlineNanos;
  }

  Schema schema() {
    return snapshot.schemaId() == null ? table.schema() : table.schemas().getOrDefault(snapshot.schemaId(), table.schema());
  }

  /** {@code columns} checked against the schema: each must name a top-level column. */
  List<String> columns(List<String> columns) {
    if (columns == null) {
      return null;
    }
    for (String column : columns) {
      if (schema().findField(column) == null) {
        throw QueryException.badRequest("Cannot read " + table.name() + ": unknown column " + column
            + " (columns: " + String.join(", ", schema().columns().stream().map(f -> f.name()).toList()) + ")");
      }
    }
    return columns;
  }

  /** An Iceberg expression from its JSON, its values converted to the columns' types and checked. */
  @Override
  public Expression expression(String json) {
    try {
      Expression expression = ExpressionParser.fromJson(json, schema());
      Binder.bind(schema().asStruct(), expression, true);
      return expression;
    } catch (ValidationException | IllegalArgumentException | UnsupportedOperationException e) {
      throw QueryException.badRequest("Invalid filter for " + table.name() + ": " + e.getMessage());
    } catch (RuntimeException e) {
      throw QueryException.badRequest("Invalid filter for " + table.name() + ": " + e);
    }
  }

  /** Streams the rows matching {@code filter} (projected to {@code select}) until {@code sink} says stop. */
  void read(List<String> select, Expression filter, RowSink sink) {
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId())
        .where(filter == null ? Expressions.alwaysTrue() : filter);
    if (select != null) {
      scan = scan.select(select.toArray(String[]::new));
    }
    long rows = 0;
    try (CloseableIterable<Record> records = scan.build()) {
      for (Record record : records) {
        if (++rows % DEADLINE_CHECK_ROWS == 0) {
          checkDeadline();
        }
        if (!sink.accept(record)) {
          return;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + table.name() + ": " + e.getMessage(), e);
    }
    checkDeadline();
  }

  /**
   * The rows (data file, position) of the snapshot matching {@code filter}, deletes applied; at
   * most {@code max} of them, else the query is refused (422).
   */
  Set<RowRef> rowRefs(Expression filter, int max) {
    Set<RowRef> refs = new HashSet<>();
    // the filter binds to the projection: its columns, then the row's file and position
    List<Types.NestedField> columns = new ArrayList<>(TypeUtil.select(
        schema(), Binder.boundReferences(schema().asStruct(), List.of(filter), true)).columns());
    columns.add(MetadataColumns.FILE_PATH);
    columns.add(MetadataColumns.ROW_POSITION);
    Schema positions = new Schema(columns);
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId())
        .where(filter).project(positions);
    try (CloseableIterable<Record> records = scan.build()) {
      for (Record record : records) {
        if (refs.size() == max) {
          throw QueryException.overLimit("Cannot search " + table.name() + ": the filter matches more than "
              + max + " rows; narrow it");
        }
        refs.add(new RowRef(record.getField(MetadataColumns.FILE_PATH.name()).toString(),
            (Long) record.getField(MetadataColumns.ROW_POSITION.name())));
        if (refs.size() % DEADLINE_CHECK_ROWS == 0) {
          checkDeadline();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + table.name() + ": " + e.getMessage(), e);
    }
    return refs;
  }

  @Override
  public void checkColumns(List<String> columns) {
    columns(columns);
  }

  @Override
  public String tableName() {
    return table.name();
  }

  /** Edges as (src, dst, weight) of the selected columns, integral ids as longs. */
  @Override
  public void edges(List<String> select, Expression filter, Traversal.EdgeSink edge) {
    // a projection keeps the schema's column order, not the select's: read by name
    read(select, filter, record -> edge.accept(vertex(record.getField(select.get(0))),
        vertex(record.getField(select.get(1))),
        select.size() > 2 ? RowJson.value(record.getField(select.get(2))) : null));
  }

  private static Object vertex(Object id) {
    if (id instanceof Integer || id instanceof Short || id instanceof Byte) {
      return ((Number) id).longValue();
    }
    return RowJson.value(id);
  }

  void checkDeadline() {
    if (System.nanoTime() > deadlineNanos) {
      throw QueryException.overLimit("Cannot finish the query of " + table.name()
          + " within the node's time limit; narrow the filter or lower the limit");
    }
  }

  /** Receives rows; returns false to stop reading. */
  @FunctionalInterface
  interface RowSink {
    boolean accept(Record record);
  }

  /**
   * Collects rows up to {@code limit}, noting whether one more matched, as the answer schema's
   * typed values (what an Arrow answer is written from); {@link #rows} shows them as JSON-ready
   * maps without keeping a second copy. The byte budget counts each row's JSON as it comes.
   */
  static final class Collector implements RowSink {
    private final int limit;
    private final Consumer<Object> budget;
    final Schema answer;
    final List<Object[]> values = new ArrayList<>();
    final List<Map<String, Object>> rows;
    boolean truncated;

    /**
     * @param select the columns answered, in order (the reader adds the filter's), or null for all
     * @param table the schema the rows are read with
     */
    Collector(int limit, List<String> select, Schema table, Consumer<Object> budget) {
      this.limit = limit;
      this.budget = budget;
      this.answer = answerSchema(table, select);
      this.rows = new JsonRows(answer, values);
    }

    @Override
    public boolean accept(Record record) {
      if (values.size() == limit) {
        truncated = true;
        return false;
      }
      List<Types.NestedField> columns = answer.columns();
      Object[] typed = new Object[columns.size()];
      for (int c = 0; c < typed.length; c++) {
        typed[c] = record.getField(columns.get(c).name());
      }
      budget.accept(JsonRows.row(columns, typed));
      values.add(typed);
      return true;
    }

    /** The answered columns in answer order: {@code select}'s, or the table's without metadata columns. */
    private static Schema answerSchema(Schema table, List<String> select) {
      List<Types.NestedField> columns = new ArrayList<>();
      if (select == null) {
        table.columns().stream().filter(f -> !MetadataColumns.isMetadataColumn(f.name())).forEach(columns::add);
      } else {
        select.forEach(column -> columns.add(table.findField(column)));
      }
      return new Schema(columns);
    }
  }
}
