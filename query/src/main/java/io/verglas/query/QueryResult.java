package io.verglas.query;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;

/**
 * An answer: the table and snapshot read (null when the table has none yet), the rows, whether
 * more rows matched than were returned, and what the kind adds: a traversal's vertices, edges
 * and paths (its answer has no rows), a vector search's method and reason.
 *
 * <p>The rows are JSON-ready maps. A scan's or lookup's answer is also a table: {@code
 * rowSchema} (its columns in order) and {@code rowValues} (per row, the Iceberg generic values
 * in that order), which an Arrow answer is written from; both are null for the other kinds.
 */
public record QueryResult(String kind, String table, Long snapshotId, List<Map<String, Object>> rows,
    boolean truncated, Map<String, Object> extra, Schema rowSchema, List<Object[]> rowValues) {

  public QueryResult(String kind, String table, Long snapshotId, List<Map<String, Object>> rows,
      boolean truncated, Map<String, Object> extra) {
    this(kind, table, snapshotId, rows, truncated, extra, null, null);
  }

  static QueryResult table(String kind, String table, long snapshotId, TableReads.Collector rows) {
    return new QueryResult(kind, table, snapshotId, rows.rows, rows.truncated, null, rows.answer, rows.values);
  }
}
