package io.verglas.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * JSON form of {@link AlterTableRequest}: {@code {"namespace":["demo"],"name":"events",
 * "addColumns":[{"name":"region","type":"string","doc":"..."}]}}. Types use Iceberg's primitive
 * type names ({@code long}, {@code decimal(12, 2)}, {@code timestamptz}, ...).
 */
public final class AlterTableRequestParser {
  static final String NAMESPACE = "namespace";
  static final String NAME = "name";
  static final String ADD_COLUMNS = "addColumns";
  static final String TYPE = "type";
  static final String DOC = "doc";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private AlterTableRequestParser() {}

  public static String toJson(AlterTableRequest request) {
    ObjectNode root = MAPPER.createObjectNode();
    request.namespace().forEach(root.putArray(NAMESPACE)::add);
    root.put(NAME, request.name());
    for (AlterTableRequest.NewColumn column : request.addColumns()) {
      ObjectNode node = root.withArray(ADD_COLUMNS).addObject();
      node.put(NAME, column.name());
      node.put(TYPE, column.type().toString());
      if (column.doc() != null) {
        node.put(DOC, column.doc());
      }
    }
    return root.toString();
  }

  /**
   * Parses a request.
   *
   * @throws IllegalArgumentException naming what is wrong, "Cannot parse alter-table request: ..."
   */
  public static AlterTableRequest fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw invalid("not JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    if (root == null || !root.isObject()) {
      throw invalid("expected a JSON object");
    }
    List<String> namespace = new ArrayList<>();
    JsonNode levels = root.get(NAMESPACE);
    if (levels == null || !levels.isArray()) {
      throw invalid("missing array " + NAMESPACE);
    }
    levels.forEach(level -> namespace.add(level.asText()));
    JsonNode name = root.get(NAME);
    if (name == null || !name.isTextual()) {
      throw invalid("missing string " + NAME);
    }
    JsonNode add = root.get(ADD_COLUMNS);
    if (add == null || !add.isArray()) {
      throw invalid("missing array " + ADD_COLUMNS);
    }
    List<AlterTableRequest.NewColumn> columns = new ArrayList<>();
    for (JsonNode column : add) {
      JsonNode columnName = column.get(NAME);
      JsonNode type = column.get(TYPE);
      if (columnName == null || !columnName.isTextual() || type == null || !type.isTextual()) {
        throw invalid("each of " + ADD_COLUMNS + " needs a string name and type, got " + column);
      }
      JsonNode doc = column.get(DOC);
      columns.add(new AlterTableRequest.NewColumn(columnName.asText(),
          primitive(columnName.asText(), type.asText()),
          doc == null || doc.isNull() ? null : doc.asText()));
    }
    try {
      return new AlterTableRequest(namespace, name.asText(), columns);
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
  }

  private static Type primitive(String column, String type) {
    try {
      return Types.fromPrimitiveString(type);
    } catch (IllegalArgumentException e) {
      throw invalid("column '" + column + "' has unknown type '" + type + "' (use an Iceberg "
          + "primitive type like long, string, decimal(12, 2), timestamptz)");
    }
  }

  private static IllegalArgumentException invalid(String reason) {
    return new IllegalArgumentException("Cannot parse alter-table request: " + reason);
  }
}
