package io.verglas.query;

import java.util.List;
import java.util.Map;

/**
 * An answer: the table and snapshot read (null when the table has none yet), the rows, whether
 * more rows matched than were returned, and what the kind adds: a traversal's vertices, edges
 * and paths (its answer has no rows), a vector search's method and reason.
 */
public record QueryResult(String kind, String table, Long snapshotId, List<Map<String, Object>> rows,
    boolean truncated, Map<String, Object> extra) {}
