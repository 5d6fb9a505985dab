package io.verglas.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * The cache node's answer to a query: the snapshot it read (null for a table without one), the
 * rows (for a scan or lookup) and whether more matched, or the traversal's vertices, edges and
 * paths as JSON.
 */
public record QueryAnswer(Long snapshotId, List<Map<String, Object>> rows, boolean truncated,
    JsonNode vertices, JsonNode edges, JsonNode paths) {}
