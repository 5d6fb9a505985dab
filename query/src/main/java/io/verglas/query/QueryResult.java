package io.verglas.query;

import java.util.List;
import java.util.Map;

/**
 * An answer: the table and snapshot read (null when the table has none yet), the rows, whether
 * more rows matched than were returned, and for a traversal its vertices, edges and paths.
 */
public record QueryResult(String kind, String table, Long snapshotId, List<Map<String, Object>> rows,
    boolean truncated, Map<String, Object> graph) {}
