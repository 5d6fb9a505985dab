package io.verglas.query;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;

/** One query of {@code POST /v1/query}, pinned to one snapshot of one table. */
public sealed interface QueryRequest {
  TableIdentifier table();

  SnapshotSelector snapshot();

  /**
   * Rows matching {@code filter} (Iceberg expression JSON, as {@code ExpressionParser} reads
   * it; null for all), projected to {@code select} (null for every column), at most {@code
   * limit} (null for the node's row limit).
   */
  record Scan(TableIdentifier table, SnapshotSelector snapshot, List<String> select,
      JsonNode filter, Integer limit) implements QueryRequest {}

  /**
   * The rows of the given primary keys: each key a JSON object naming every primary-key column,
   * or a scalar when the key has one column.
   */
  record Lookup(TableIdentifier table, SnapshotSelector snapshot, List<String> select,
      List<JsonNode> keys) implements QueryRequest {}

  /**
   * A breadth-first traversal of the edge table from {@code seeds}: up to {@code depth} hops,
   * at most {@code fanout} edges followed from each vertex, over edges matching {@code filter}.
   *
   * @param weight the edge column returned as each edge's weight, or null
   */
  record Traverse(TableIdentifier table, SnapshotSelector snapshot, List<JsonNode> seeds,
      String src, String dst, String weight, JsonNode filter, int depth, int fanout)
      implements QueryRequest {}

  /**
   * The {@code k} rows nearest to {@code vector} in the table's vector column (its metric and
   * dimension are table properties), searched with beam {@code ef}: through the snapshot's own
   * index, or by exact search when it has none; only rows matching {@code filter} (Iceberg
   * expression JSON on other columns, null for all) are candidates.
   */
  record Vector(TableIdentifier table, SnapshotSelector snapshot, List<String> select,
      float[] vector, int k, int ef, JsonNode filter) implements QueryRequest {}

  /**
   * The snapshot itself (id, sequence number, parent, time, operation, summary), as
   * {@code snapshot} selects it; no rows.
   */
  record SnapshotInfo(TableIdentifier table, SnapshotSelector snapshot) implements QueryRequest {}

  /**
   * The rows inserted, updated and deleted between snapshot {@code from} (null for the empty
   * table before the first commit) and the snapshot {@code snapshot} selects, which {@code from}
   * must be an ancestor of.
   */
  record Delta(TableIdentifier table, SnapshotSelector from, SnapshotSelector snapshot)
      implements QueryRequest {}
}
