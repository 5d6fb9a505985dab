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
 * one encoding.
 */
final class TableScopeParser {
  static final String SUBJECT = "sub";
  static final String EXPIRES_MS = "exp-ms";
  static final String READS = "reads";
  static final String WRITES = "writes";
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
        Instant.ofEpochMilli(node.get(EXPIRES_MS).asLong()), reads, writes);
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
