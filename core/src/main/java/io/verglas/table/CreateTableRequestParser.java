package io.verglas.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/** JSON form of {@link CreateTableRequest}; schema and spec use Iceberg's own JSON. */
public final class CreateTableRequestParser {
  static final String NAMESPACE = "namespace";
  static final String NAME = "name";
  static final String SCHEMA = "schema";
  static final String PRIMARY_KEY = "primaryKey";
  static final String PARTITION_SPEC = "partitionSpec";
  static final String PROPERTIES = "properties";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CreateTableRequestParser() {}

  public static String toJson(CreateTableRequest request) {
    ObjectNode root = MAPPER.createObjectNode();
    request.namespace().forEach(root.putArray(NAMESPACE)::add);
    root.put(NAME, request.name());
    root.set(SCHEMA, readTree(SchemaParser.toJson(request.schema())));
    request.primaryKey().forEach(root.putArray(PRIMARY_KEY)::add);
    if (request.partitionSpec().isPartitioned()) {
      root.set(PARTITION_SPEC, readTree(PartitionSpecParser.toJson(request.partitionSpec())));
    }
    ObjectNode props = root.putObject(PROPERTIES);
    request.properties().forEach(props::put);
    return root.toString();
  }

  public static CreateTableRequest fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse create-table request: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("Cannot parse create-table request: not a JSON object");
    }
    Schema schema = SchemaParser.fromJson(required(root, SCHEMA));
    JsonNode specNode = root.get(PARTITION_SPEC);
    PartitionSpec spec = specNode == null || specNode.isNull()
        ? PartitionSpec.unpartitioned() : PartitionSpecParser.fromJson(schema, specNode);
    return new CreateTableRequest(strings(root, NAMESPACE, true), required(root, NAME).asText(),
        schema, strings(root, PRIMARY_KEY, false), spec, properties(root));
  }

  private static JsonNode required(JsonNode root, String field) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      throw new IllegalArgumentException("Cannot parse create-table request: missing " + field);
    }
    return node;
  }

  private static List<String> strings(JsonNode root, String field, boolean required) {
    JsonNode node = required ? required(root, field) : root.get(field);
    List<String> values = new ArrayList<>();
    if (node == null || node.isNull()) {
      return values;
    }
    if (!node.isArray()) {
      throw new IllegalArgumentException("Cannot parse create-table request: " + field
          + " must be an array of strings");
    }
    node.forEach(item -> values.add(item.asText()));
    return values;
  }

  private static Map<String, String> properties(JsonNode root) {
    Map<String, String> props = new LinkedHashMap<>();
    JsonNode node = root.get(PROPERTIES);
    if (node != null && node.isObject()) {
      node.fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    }
    return props;
  }

  private static JsonNode readTree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
