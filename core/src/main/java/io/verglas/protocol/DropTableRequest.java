package io.verglas.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The body of the Flight {@code drop-table} action, as JSON {@code {"namespace":["demo"],
 * "name":"events","purge":false,"dropEmptyNamespace":false}}. {@code purge} also deletes the
 * table's files; {@code dropEmptyNamespace} (optional, default false) also drops the table's
 * namespace, and its parents in turn, while the drop leaves them empty.
 */
public record DropTableRequest(List<String> namespace, String name, boolean purge,
    boolean dropEmptyNamespace) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public DropTableRequest {
    namespace = List.copyOf(namespace);
    Objects.requireNonNull(name, "name");
    if (namespace.isEmpty() || name.isBlank()) {
      throw new IllegalArgumentException("Invalid drop-table request: namespace and name are "
          + "required");
    }
  }

  /** A request that leaves the namespace alone. */
  public DropTableRequest(List<String> namespace, String name, boolean purge) {
    this(namespace, name, purge, false);
  }

  public static DropTableRequest of(TableIdentifier table, boolean purge) {
    return new DropTableRequest(List.of(table.namespace().levels()), table.name(), purge);
  }

  /** This request, also dropping the namespace levels it leaves empty. */
  public DropTableRequest withEmptyNamespaceDropped() {
    return new DropTableRequest(namespace, name, purge, true);
  }

  public TableIdentifier identifier() {
    return TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)), name);
  }

  public String toJson() {
    ObjectNode root = MAPPER.createObjectNode();
    namespace.forEach(root.putArray("namespace")::add);
    root.put("name", name);
    root.put("purge", purge);
    if (dropEmptyNamespace) {
      root.put("dropEmptyNamespace", true);
    }
    return root.toString();
  }

  /** Parses a request; throws "Cannot parse drop-table request: ..." when it is malformed. */
  public static DropTableRequest fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse drop-table request: not JSON", e);
    }
    if (root == null || !root.isObject() || !root.path("namespace").isArray()
        || !root.path("name").isTextual()) {
      throw new IllegalArgumentException("Cannot parse drop-table request: expected "
          + "{\"namespace\":[...],\"name\":\"...\",\"purge\":false}");
    }
    List<String> namespace = new ArrayList<>();
    root.get("namespace").forEach(level -> namespace.add(level.asText()));
    try {
      return new DropTableRequest(namespace, root.get("name").asText(),
          root.path("purge").asBoolean(false), root.path("dropEmptyNamespace").asBoolean(false));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot parse drop-table request: " + e.getMessage(), e);
    }
  }
}
