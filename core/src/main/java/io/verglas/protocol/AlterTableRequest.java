package io.verglas.protocol;

import java.util.List;
import java.util.Objects;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;

/**
 * The body of the Flight {@code alter-table} action: columns to add to a table. Added columns
 * are always optional (nullable), so every row already written and every writer still sending
 * the old columns stay valid.
 */
public record AlterTableRequest(List<String> namespace, String name, List<NewColumn> addColumns) {

  /** A column to add: a top-level name, a primitive type and an optional description. */
  public record NewColumn(String name, Type type, String doc) {
    public NewColumn {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
      if (name.isBlank()) {
        throw new IllegalArgumentException("Invalid column: name is blank");
      }
      if (!type.isPrimitiveType()) {
        throw new IllegalArgumentException("Invalid column '" + name + "': type " + type
            + " is not primitive");
      }
    }
  }

  public AlterTableRequest {
    namespace = List.copyOf(namespace);
    Objects.requireNonNull(name, "name");
    addColumns = List.copyOf(addColumns);
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("Invalid alter-table request: namespace is empty");
    }
    if (name.isBlank()) {
      throw new IllegalArgumentException("Invalid alter-table request: name is blank");
    }
    if (addColumns.isEmpty()) {
      throw new IllegalArgumentException("Invalid alter-table request: no columns to add");
    }
  }

  public TableIdentifier identifier() {
    return TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)), name);
  }
}
