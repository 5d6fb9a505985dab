package io.verglas.access;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.table.TableIdentifiers;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The claims of a scoped token as JSON: {@code {"sub", "exp-ms", "reads", "writes"}}, each table
 * a list of its levels (namespace levels, then the name), so a table name with a dot needs no
 * quoting and cannot be read as another table. {@code reads} lists only the tables that are not
 * also in {@code writes} (a write grant includes reading). Tables are sorted, so one scope has
 * one encoding. Object grants, if any, follow as {@code "objects": [[bucket, prefix, "read" |
 * "write"], ...]}; claims without them (every token minted before they existed) grant none.
 */
final class TableScopeParser {
  static final String SUBJECT = "sub";
  static final String EXPIRES_MS = "exp-ms";
  static final String READS = "reads";
  static final String WRITES = "writes";
  static final String OBJECTS = "objects";
  private static final String READ = "read";
  private static final String WRITE = "write";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Comparator<TableIdentifier> ORDER =
      Comparator.comparing(TableIdentifiers::toString);

  private TableScopeParser() {}

  static String toJson(TableScope scope) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put(SUBJECT, scope.subject());
    node.put(EXPIRES_MS, scope.expiresAt().toEpochMilli());
    Set<TableIdentifier> readOnly = new HashSet<>(scope.reads());
    readOnly.removeAll(scope.writes());
    tables(node.putArray(READS), readOnly);
    tables(node.putArray(WRITES), scope.writes());
    if (!scope.objects().isEmpty()) {
      ArrayNode objects = node.putArray(OBJECTS);
      scope.objects().forEach(g -> objects.addArray().add(g.bucket()).add(g.prefix())
          .add(g.write() ? WRITE : READ));
    }
    return node.toString();
  }

  /** @throws IllegalArgumentException if {@code json} is not the claims of a scope */
  static TableScope fromJson(String json) {
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("claims are not JSON");
    }
    if (node == null || !node.isObject() || !node.path(SUBJECT).isTextual()
        || !node.path(EXPIRES_MS).isIntegralNumber()) {
      throw new IllegalArgumentException("claims lack '" + SUBJECT + "' or '" + EXPIRES_MS + "'");
    }
    Set<TableIdentifier> writes = tables(node.get(WRITES), WRITES);
    Set<TableIdentifier> reads = tables(node.get(READS), READS);
    return new TableScope(node.get(SUBJECT).asText(),
        Instant.ofEpochMilli(node.get(EXPIRES_MS).asLong()), reads, writes,
        objects(node.get(OBJECTS)));
  }

  private static List<ObjectGrant> objects(JsonNode array) {
    if (array == null) {
      return List.of();
    }
    if (!array.isArray()) {
      throw new IllegalArgumentException("'" + OBJECTS + "' is not a list");
    }
    List<ObjectGrant> grants = new ArrayList<>();
    for (JsonNode grant : array) {
      if (!grant.isArray() || grant.size() != 3 || !grant.get(0).isTextual()
          || !grant.get(1).isTextual() || !Set.of(READ, WRITE).contains(grant.get(2).asText())) {
        throw new IllegalArgumentException("'" + OBJECTS + "' holds " + grant
            + ", not [bucket, prefix, \"" + READ + "\" or \"" + WRITE + "\"]");
      }
      grants.add(new ObjectGrant(grant.get(0).asText(), grant.get(1).asText(),
          grant.get(2).asText().equals(WRITE)));
    }
    return grants;
  }

  private static void tables(ArrayNode array, Set<TableIdentifier> tables) {
    tables.stream().sorted(ORDER).forEach(table -> {
      ArrayNode levels = array.addArray();
      TableIdentifiers.levels(table).forEach(levels::add);
    });
  }

  private static Set<TableIdentifier> tables(JsonNode array, String field) {
    if (array == null || !array.isArray()) {
      throw new IllegalArgumentException("claims lack the list '" + field + "'");
    }
    Set<TableIdentifier> tables = new HashSet<>();
    for (JsonNode table : array) {
      if (!table.isArray() || table.size() < 2) {
        throw new IllegalArgumentException("'" + field + "' holds " + table
            + ", not a list of a table's levels");
      }
      List<String> levels = new ArrayList<>();
      for (JsonNode level : table) {
        if (!level.isTextual()) {
          throw new IllegalArgumentException("'" + field + "' holds a level that is not text");
        }
        levels.add(level.asText());
      }
      tables.add(TableIdentifiers.identifier(levels));
    }
    return tables;
  }
}
