package io.verglas.query.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.query.QueryException;
import io.verglas.query.QueryLimits;
import io.verglas.query.QueryRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Breadth-first traversal over an edge table: each hop is one scan of the edges whose source is
 * in the frontier ({@code src in (...)}, pruned by file and row-group statistics and bloom
 * filters), at most {@code fanout} edges followed from a vertex, new destinations forming the
 * next frontier. Answers the vertices with their depth, the edges followed, and one shortest
 * path from a seed to each vertex. Refused (422) when the vertices reached pass the node's row
 * limit or the depth its depth limit.
 */
public final class Traversal {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EdgeReads reads;
  private final QueryRequest.Traverse request;
  private final QueryLimits limits;
  private final Consumer<Object> budget;

  public Traversal(EdgeReads reads, QueryRequest.Traverse request, QueryLimits limits, Consumer<Object> budget) {
    this.reads = reads;
    this.request = request;
    this.limits = limits;
    this.budget = budget;
  }

  /** What a traversal needs of the table: checked columns and expressions, and edge scans. */
  public interface EdgeReads {
    void checkColumns(List<String> columns);

    Expression expression(String json);

    /** Calls {@code edge} with (src, dst, weight) for each edge matching {@code filter}. */
    void edges(List<String> select, Expression filter, EdgeSink edge);

    String tableName();
  }

  /** Receives one edge; returns false to stop the scan. */
  @FunctionalInterface
  public interface EdgeSink {
    boolean accept(Object src, Object dst, Object weight);
  }

  public Map<String, Object> run() {
    if (request.depth() > limits.maxDepth()) {
      throw over("depth " + request.depth() + " exceeds the node's limit of " + limits.maxDepth());
    }
    List<String> select = new ArrayList<>(List.of(request.src(), request.dst()));
    if (request.weight() != null) {
      select.add(request.weight());
    }
    reads.checkColumns(select);
    Expression filter = request.filter() == null ? null : reads.expression(request.filter().toString());
    Map<Object, Integer> depthOf = new LinkedHashMap<>();
    Map<Object, Object> parent = new HashMap<>();
    List<Map<String, Object>> edges = new ArrayList<>();
    Set<Object> frontier = seeds();
    frontier.forEach(seed -> depthOf.put(seed, 0));
    for (int depth = 1; depth <= request.depth() && !frontier.isEmpty(); depth++) {
      frontier = hop(frontier, depth, filter, select, depthOf, parent, edges);
    }
    Map<String, Object> graph = new LinkedHashMap<>();
    List<Map<String, Object>> vertices = new ArrayList<>();
    depthOf.forEach((vertex, depth) -> vertices.add(Map.of("id", vertex, "depth", depth)));
    graph.put("vertices", vertices);
    graph.put("edges", edges);
    graph.put("paths", paths(depthOf, parent));
    return graph;
  }

  private Set<Object> hop(Set<Object> frontier, int depth, Expression filter, List<String> select,
      Map<Object, Integer> depthOf, Map<Object, Object> parent, List<Map<String, Object>> edges) {
    Expression sources = reads.expression(inFrontier(frontier));
    Expression where = filter == null ? sources : Expressions.and(sources, filter);
    Map<Object, Integer> followed = new HashMap<>();
    Set<Object> next = new LinkedHashSet<>();
    reads.edges(select, where, (src, dst, weight) -> {
      if (followed.merge(src, 1, Integer::sum) > request.fanout()) {
        return true;
      }
      Map<String, Object> edge = new LinkedHashMap<>();
      edge.put("src", src);
      edge.put("dst", dst);
      if (request.weight() != null) {
        edge.put("weight", weight);
      }
      edge.put("depth", depth);
      budget.accept(edge);
      edges.add(edge);
      if (!depthOf.containsKey(dst)) {
        if (depthOf.size() >= limits.maxRows()) {
          throw over("it reached more than " + limits.maxRows() + " vertices; lower depth or fanout");
        }
        depthOf.put(dst, depth);
        parent.put(dst, src);
        next.add(dst);
      }
      return true;
    });
    return next;
  }

  private String inFrontier(Set<Object> frontier) {
    ObjectNode in = JSON.createObjectNode().put("type", "in").put("term", request.src());
    ArrayNode values = in.putArray("values");
    frontier.forEach(v -> values.add(JSON.valueToTree(v)));
    return in.toString();
  }

  private Set<Object> seeds() {
    Set<Object> seeds = new LinkedHashSet<>();
    for (JsonNode seed : request.seeds()) {
      seeds.add(seedValue(seed));
    }
    reads.expression(inFrontier(seeds)); // a seed the source column cannot hold is a 400
    return seeds;
  }

  private Object seedValue(JsonNode seed) {
    if (seed.isIntegralNumber()) {
      return seed.asLong();
    }
    if (seed.isTextual()) {
      return seed.asText();
    }
    throw new QueryException(400, "Invalid seed " + seed
        + ": a vertex id (an integer or a string)");
  }

  private static List<Map<String, Object>> paths(Map<Object, Integer> depthOf, Map<Object, Object> parent) {
    List<Map<String, Object>> paths = new ArrayList<>();
    for (Object vertex : depthOf.keySet()) {
      List<Object> path = new ArrayList<>();
      for (Object at = vertex; at != null; at = parent.get(at)) {
        path.add(0, at);
      }
      paths.add(Map.of("vertex", vertex, "path", path));
    }
    return paths;
  }

  private QueryException over(String why) {
    return new QueryException(422, "Cannot traverse " + reads.tableName() + ": " + why);
  }
}
