package io.verglas.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.table.TableIdentifiers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Reads a query from its JSON body, refusing with a precise 400 anything it does not know or
 * cannot use:
 *
 * <pre>
 * {"kind": "scan", "table": "ns.t", "select": ["a", "b"], "filter": {...}, "limit": 100,
 *  "snapshot": {"id": 123} | {"timestamp-ms": 1700000000000} | {"ref": "main"}}
 * {"kind": "lookup", "table": "ns.t", "keys": [1, 2] | [{"k1": 1, "k2": "x"}], "select": [...]}
 * {"kind": "traverse", "table": "ns.edges", "seeds": [1], "depth": 3, "fanout": 100,
 *  "src": "src", "dst": "dst", "weight": "w", "filter": {...}}
 * {"kind": "vector", "table": "ns.t", "vector": [0.1, ...], "k": 10, "ef": 40, "select": [...],
 *  "filter": {...}}
 * {"kind": "snapshot", "table": "ns.t", "snapshot": {...}}
 * {"kind": "delta", "table": "ns.t", "from": {"id": 1} | null, "snapshot": {"id": 2}}
 * </pre>
 */
public final class QueryRequestParser {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> SCAN = Set.of("kind", "table", "snapshot", "select", "filter", "limit");
  private static final Set<String> LOOKUP = Set.of("kind", "table", "snapshot", "select", "keys");
  private static final Set<String> TRAVERSE = Set.of("kind", "table", "snapshot", "seeds", "src",
      "dst", "weight", "filter", "depth", "fanout");
  private static final Set<String> VECTOR = Set.of("kind", "table", "snapshot", "select", "vector",
      "k", "ef", "filter");
  private static final Set<String> SNAPSHOT = Set.of("kind", "table", "snapshot");
  private static final Set<String> DELTA = Set.of("kind", "table", "snapshot", "from");
  private static final int DEFAULT_DEPTH = 2;
  private static final int DEFAULT_K = 10;
  private static final int DEFAULT_EF = 40;
  private static final int DEFAULT_FANOUT = 100;

  private QueryRequestParser() {}

  public static QueryRequest parse(byte[] body) {
    JsonNode root = read(body);
    String kind = text(root, "kind", true);
    return switch (kind) {
      case "scan" -> scan(checkFields(root, SCAN, kind));
      case "lookup" -> lookup(checkFields(root, LOOKUP, kind));
      case "traverse" -> traverse(checkFields(root, TRAVERSE, kind));
      case "vector" -> vector(checkFields(root, VECTOR, kind));
      case "snapshot" -> new QueryRequest.SnapshotInfo(table(checkFields(root, SNAPSHOT, kind)),
          SnapshotSelector.fromJson(root.get("snapshot")));
      case "delta" -> delta(checkFields(root, DELTA, kind));
      default -> throw QueryException.badRequest("Unknown query kind: " + kind
          + " (scan, lookup, traverse, vector, snapshot, delta)");
    };
  }

  private static QueryRequest.Scan scan(JsonNode root) {
    JsonNode limit = root.get("limit");
    if (limit != null && (!limit.canConvertToInt() || limit.asInt() <= 0)) {
      throw QueryException.badRequest("Invalid limit: " + limit + " (a positive integer)");
    }
    return new QueryRequest.Scan(table(root), SnapshotSelector.fromJson(root.get("snapshot")),
        select(root), object(root, "filter"), limit == null ? null : limit.asInt());
  }

  private static QueryRequest.Lookup lookup(JsonNode root) {
    List<JsonNode> keys = array(root, "keys");
    if (keys.isEmpty()) {
      throw QueryException.badRequest("Cannot look up rows: \"keys\" is empty");
    }
    return new QueryRequest.Lookup(table(root), SnapshotSelector.fromJson(root.get("snapshot")),
        select(root), keys);
  }

  private static QueryRequest.Traverse traverse(JsonNode root) {
    List<JsonNode> seeds = array(root, "seeds");
    if (seeds.isEmpty()) {
      throw QueryException.badRequest("Cannot traverse: \"seeds\" is empty");
    }
    return new QueryRequest.Traverse(table(root), SnapshotSelector.fromJson(root.get("snapshot")),
        seeds, textOr(root, "src", "src"), textOr(root, "dst", "dst"), text(root, "weight", false),
        object(root, "filter"), positive(root, "depth", DEFAULT_DEPTH),
        positive(root, "fanout", DEFAULT_FANOUT));
  }

  private static QueryRequest.Vector vector(JsonNode root) {
    List<JsonNode> values = array(root, "vector");
    float[] vector = new float[values.size()];
    for (int i = 0; i < vector.length; i++) {
      if (!values.get(i).isNumber()) {
        throw QueryException.badRequest("Invalid \"vector\": element " + i + " is " + values.get(i)
            + ", not a number");
      }
      vector[i] = values.get(i).floatValue();
    }
    if (vector.length == 0) {
      throw QueryException.badRequest("Invalid \"vector\": it is empty");
    }
    return new QueryRequest.Vector(table(root), SnapshotSelector.fromJson(root.get("snapshot")),
        select(root), vector, positive(root, "k", DEFAULT_K), positive(root, "ef", DEFAULT_EF),
        object(root, "filter"));
  }

  private static QueryRequest.Delta delta(JsonNode root) {
    if (!root.has("from")) {
      throw QueryException.badRequest("Missing \"from\": the snapshot the delta starts at"
          + " ({\"id\": n}), or null for the empty table");
    }
    JsonNode from = root.get("from");
    return new QueryRequest.Delta(table(root), from.isNull() ? null : SnapshotSelector.fromJson(from),
        SnapshotSelector.fromJson(root.get("snapshot")));
  }

  private static JsonNode read(byte[] body) {
    try {
      JsonNode root = JSON.readTree(body);
      if (root == null || !root.isObject()) {
        throw QueryException.badRequest("Invalid query: the body must be a JSON object");
      }
      return root;
    } catch (JsonProcessingException e) {
      throw QueryException.badRequest("Invalid query JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw QueryException.badRequest("Cannot read the query: " + e.getMessage());
    }
  }

  private static JsonNode checkFields(JsonNode root, Set<String> known, String kind) {
    root.fieldNames().forEachRemaining(name -> {
      if (!known.contains(name)) {
        throw QueryException.badRequest("Unknown field of a " + kind + " query: " + name
            + " (" + String.join(", ", known.stream().sorted().toList()) + ")");
      }
    });
    return root;
  }

  private static TableIdentifier table(JsonNode root) {
    String name = text(root, "table", true);
    try {
      return TableIdentifiers.identifier(name);
    } catch (IllegalArgumentException e) {
      throw QueryException.badRequest("Invalid table name " + name + ": " + e.getMessage());
    }
  }

  private static List<String> select(JsonNode root) {
    if (!root.has("select")) {
      return null;
    }
    List<String> columns = new ArrayList<>();
    for (JsonNode column : array(root, "select")) {
      if (!column.isTextual()) {
        throw QueryException.badRequest("Invalid select: " + column + " is not a column name");
      }
      columns.add(column.asText());
    }
    if (columns.isEmpty()) {
      throw QueryException.badRequest("Invalid select: it names no column");
    }
    return columns;
  }

  private static List<JsonNode> array(JsonNode root, String field) {
    JsonNode node = root.get(field);
    if (node == null || !node.isArray()) {
      throw QueryException.badRequest("Missing or invalid \"" + field + "\": a JSON array is needed");
    }
    List<JsonNode> items = new ArrayList<>();
    node.forEach(items::add);
    return items;
  }

  private static JsonNode object(JsonNode root, String field) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject() && !node.isBoolean()) {
      throw QueryException.badRequest("Invalid \"" + field + "\": an Iceberg expression (JSON object) is needed");
    }
    return node;
  }

  private static String text(JsonNode root, String field, boolean required) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      if (required) {
        throw QueryException.badRequest("Missing \"" + field + "\"");
      }
      return null;
    }
    if (!node.isTextual() || node.asText().isBlank()) {
      throw QueryException.badRequest("Invalid \"" + field + "\": " + node + " (a non-empty string)");
    }
    return node.asText();
  }

  private static String textOr(JsonNode root, String field, String otherwise) {
    String value = text(root, field, false);
    return value == null ? otherwise : value;
  }

  private static int positive(JsonNode root, String field, int otherwise) {
    JsonNode node = root.get(field);
    if (node == null) {
      return otherwise;
    }
    if (!node.canConvertToInt() || !node.isIntegralNumber() || node.asInt() <= 0) {
      throw QueryException.badRequest("Invalid \"" + field + "\": " + node + " (a positive integer)");
    }
    return node.asInt();
  }
}
