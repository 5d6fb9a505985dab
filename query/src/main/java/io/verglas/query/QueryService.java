package io.verglas.query;

import io.verglas.query.graph.Traversal;
import io.verglas.query.lookup.KeyLookup;
import io.verglas.table.TableIdentifiers;
import io.verglas.vector.ExactSearchRefusedException;
import io.verglas.vector.RowRef;
import io.verglas.vector.VectorSearchResult;
import io.verglas.vector.VectorSearcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.expressions.Expression;

/**
 * Runs the query primitives on one snapshot of a table read through a catalog whose FileIO goes
 * through the cache node, so repeated queries are served from its tiers: {@code scan},
 * {@code lookup} by primary key, {@code traverse} over an edge table, {@code vector},
 * {@code snapshot} (the snapshot's own metadata) and {@code delta} (the rows inserted, updated
 * and deleted since an older snapshot, {@link SnapshotDelta}). Every answer names the
 * snapshot it read; limits ({@link QueryLimits}) keep any one query from exhausting the node.
 */
public final class QueryService {
  /** Rows a vector query's filter may match (their references are held while it searches). */
  static final int MAX_FILTERED_ROWS = 1_000_000;

  private final Supplier<Catalog> catalog;
  private final QueryLimits limits;
  private final VectorSearcher vectors;
  private final KeyLookup keyLookup;

  /** @param vectors searches vector indexes, or null when this node answers no vector query */
  public QueryService(Supplier<Catalog> catalog, QueryLimits limits, VectorSearcher vectors) {
    this(catalog, limits, vectors, KeyLookup.builder().build());
  }

  /** @param keyLookup answers lookups by primary key (its caches bounded by its builder) */
  public QueryService(Supplier<Catalog> catalog, QueryLimits limits, VectorSearcher vectors,
      KeyLookup keyLookup) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.vectors = vectors;
    this.keyLookup = Objects.requireNonNull(keyLookup, "keyLookup");
  }

  public QueryLimits limits() {
    return limits;
  }

  public QueryResult run(QueryRequest request) {
    long deadline = System.nanoTime() + limits.timeout().toNanos();
    Table table = load(request);
    Snapshot snapshot = request.snapshot().select(table);
    String name = TableIdentifiers.toString(request.table());
    if (snapshot == null) {
      boolean rows = request instanceof QueryRequest.Scan || request instanceof QueryRequest.Lookup;
      // no snapshot, no rows; a scan or lookup still answers a table (all of the table's columns)
      return new QueryResult(kind(request), name, null, List.of(), false, null,
          rows ? table.schema() : null, rows ? List.of() : null);
    }
    TableReads reads = new TableReads(table, snapshot, deadline);
    ResultBudget budget = new ResultBudget(limits.maxResultBytes(), name);
    if (request instanceof QueryRequest.Scan scan) {
      return scan(name, snapshot, reads, scan, budget);
    }
    if (request instanceof QueryRequest.Lookup lookup) {
      return lookup(name, table, snapshot, reads, lookup, budget);
    }
    if (request instanceof QueryRequest.Vector vector) {
      return vector(name, table, snapshot, reads, vector, budget);
    }
    if (request instanceof QueryRequest.SnapshotInfo) {
      return new QueryResult("snapshot", name, snapshot.snapshotId(), List.of(), false,
          describe(snapshot));
    }
    if (request instanceof QueryRequest.Delta delta) {
      Snapshot from = delta.from() == null ? null : delta.from().select(table);
      return new QueryResult("delta", name, snapshot.snapshotId(), List.of(), false,
          new SnapshotDelta(table, from, snapshot, reads, limits.maxRows()).compute(budget));
    }
    QueryRequest.Traverse traverse = (QueryRequest.Traverse) request;
    return new QueryResult("traverse", name, snapshot.snapshotId(), List.of(), false,
        new Traversal(reads, traverse, limits, budget).run());
  }

  private QueryResult scan(String name, Snapshot snapshot, TableReads reads, QueryRequest.Scan scan,
      ResultBudget budget) {
    if (scan.limit() != null && scan.limit() > limits.maxRows()) {
      throw QueryException.overLimit("Cannot scan " + name + " with limit " + scan.limit()
          + ": the node returns at most " + limits.maxRows() + " rows a query");
    }
    List<String> select = reads.columns(scan.select());
    Expression filter = scan.filter() == null ? null : reads.expression(scan.filter().toString());
    TableReads.Collector rows = new TableReads.Collector(
        scan.limit() == null ? limits.maxRows() : scan.limit(), select, reads.schema(), budget);
    reads.read(select, filter, rows);
    return QueryResult.table("scan", name, snapshot.snapshotId(), rows);
  }

  private QueryResult lookup(String name, Table table, Snapshot snapshot, TableReads reads,
      QueryRequest.Lookup lookup, ResultBudget budget) {
    if (lookup.keys().size() > limits.maxKeys()) {
      throw QueryException.overLimit("Cannot look up " + lookup.keys().size() + " keys of " + name
          + ": the node looks up at most " + limits.maxKeys() + " a query");
    }
    Schema schema = reads.schema();
    Set<String> keyColumns = schema.identifierFieldNames();
    if (keyColumns.isEmpty()) {
      throw QueryException.badRequest("Cannot look up rows of " + name
          + ": it has no primary key (Iceberg identifier fields)");
    }
    List<String> keys = new ArrayList<>(keyColumns);
    Expression filter = KeyFilter.of(reads, keys, lookup.keys());
    List<String> select = reads.columns(withKey(lookup.select(), keyColumns));
    TableReads.Collector rows = new TableReads.Collector(limits.maxRows(), select, schema, budget);
    // the key reader, or the generic reader where it cannot answer (it says so before any row)
    if (!keyLookup.lookup(table, snapshot, schema, select == null ? schema : schema.select(select), keys,
        KeyFilter.values(reads, keys, lookup.keys()), rows::accept, reads::checkDeadline)) {
      reads.read(select, filter, rows);
    }
    return QueryResult.table("lookup", name, snapshot.snapshotId(), rows);
  }

  private QueryResult vector(String name, Table table, Snapshot snapshot, TableReads reads,
      QueryRequest.Vector vector, ResultBudget budget) {
    if (vectors == null) {
      throw new QueryException(501, "Cannot run a vector query: this node searches no vector indexes");
    }
    if (vector.k() > limits.maxRows()) {
      throw QueryException.overLimit("Cannot return " + vector.k() + " neighbours of " + name
          + ": the node returns at most " + limits.maxRows() + " rows a query");
    }
    List<String> select = reads.columns(vector.select());
    VectorSearchResult result;
    try {
      result = vectors.search(table, snapshot.snapshotId(), vector.vector(), vector.k(), vector.ef(),
          candidates(reads, vector));
    } catch (ExactSearchRefusedException e) {
      throw QueryException.overLimit(e.getMessage());
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw QueryException.badRequest("Cannot search " + name + ": " + e.getMessage());
    }
    Schema projection = select == null ? reads.schema() : reads.schema().select(select);
    Map<String, Object> how = new LinkedHashMap<>();
    how.put("method", result.method().name().toLowerCase(Locale.ROOT));
    if (result.reason() != null) {
      how.put("reason", result.reason());
    }
    return new QueryResult("vector", name, snapshot.snapshotId(),
        VectorRows.read(table, projection, result.hits(), reads, budget), false, how);
  }

  /** What the snapshot kind answers besides the snapshot id. */
  private static Map<String, Object> describe(Snapshot snapshot) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("sequence-number", snapshot.sequenceNumber());
    info.put("parent", snapshot.parentId());
    info.put("timestamp-ms", snapshot.timestampMillis());
    info.put("operation", snapshot.operation());
    info.put("summary", snapshot.summary());
    return info;
  }

  /** The rows a vector query's filter admits, or null when it has none. */
  private Predicate<RowRef> candidates(TableReads reads,
      QueryRequest.Vector vector) {
    if (vector.filter() == null) {
      return null;
    }
    return reads.rowRefs(reads.expression(vector.filter().toString()), MAX_FILTERED_ROWS)::contains;
  }

  /** The projection, with the key columns added so each row says which key it answers. */
  private static List<String> withKey(List<String> select, Set<String> keyColumns) {
    if (select == null) {
      return null;
    }
    List<String> columns = new ArrayList<>(select);
    keyColumns.stream().filter(k -> !columns.contains(k)).sorted().forEach(columns::add);
    return columns;
  }

  private Table load(QueryRequest request) {
    Catalog current = catalog.get();
    if (current == null) {
      throw new QueryException(503, "Cannot run queries yet: the catalog is starting");
    }
    try {
      return current.loadTable(request.table());
    } catch (NoSuchTableException e) {
      throw QueryException.notFound("Cannot find table " + TableIdentifiers.toString(request.table()));
    }
  }

  private static String kind(QueryRequest request) {
    return request instanceof QueryRequest.Scan ? "scan"
        : request instanceof QueryRequest.Lookup ? "lookup"
        : request instanceof QueryRequest.Vector ? "vector"
        : request instanceof QueryRequest.SnapshotInfo ? "snapshot"
        : request instanceof QueryRequest.Delta ? "delta" : "traverse";
  }
}
