package io.verglas.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table as the server created it: the {@code create-table} action's JSON result
 * ({@code namespace, name, uuid, location, formatVersion, schema, primaryKey}), with the
 * Iceberg schema as the catalog assigned it (field ids may differ from the request's).
 */
public record TableInfo(
    TableIdentifier identifier, String uuid, String location, int formatVersion, Schema schema,
    List<String> primaryKey) {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  public TableInfo {
    primaryKey = List.copyOf(primaryKey);
  }

  static TableInfo fromJson(String json) {
    try {
      JsonNode node = MAPPER.readTree(json);
      List<String> namespace = strings(node.get("namespace"));
      TableIdentifier id = TableIdentifier.of(
          Namespace.of(namespace.toArray(String[]::new)), node.get("name").asText());
      return new TableInfo(id, node.get("uuid").asText(), node.get("location").asText(),
          node.get("formatVersion").asInt(), SchemaParser.fromJson(node.get("schema")),
          strings(node.get("primaryKey")));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot parse create-table result: " + json, e);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    if (array != null) {
      array.forEach(item -> values.add(item.asText()));
    }
    return values;
  }
}
