package io.verglas.table;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * A table's primary key is its Iceberg schema's identifier fields, so every engine sees it. This
 * class turns a requested key into such a schema and reads it back in declared order.
 */
public final class PrimaryKeys {
  private PrimaryKeys() {}

  /** The schema with the key columns made required and declared as identifier fields. */
  public static Schema withPrimaryKey(Schema schema, List<String> keyColumns) {
    if (keyColumns.isEmpty()) {
      return schema;
    }
    if (new HashSet<>(keyColumns).size() != keyColumns.size()) {
      throw new IllegalArgumentException("Invalid primary key: duplicate columns in " + keyColumns);
    }
    Set<Integer> ids = new HashSet<>();
    List<Integer> ordered = new ArrayList<>();
    for (String column : keyColumns) {
      Types.NestedField field = schema.caseInsensitiveFindField(column);
      if (field == null || schema.findColumnName(field.fieldId()).contains(".")) {
        throw new IllegalArgumentException("Invalid primary key: no top-level column '" + column + "'");
      }
      if (!field.type().isPrimitiveType()) {
        throw new IllegalArgumentException("Invalid primary key: column '" + column
            + "' has non-primitive type " + field.type());
      }
      ids.add(field.fieldId());
      ordered.add(field.fieldId());
    }
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      columns.add(ids.contains(field.fieldId()) ? field.asRequired() : field);
    }
    return new Schema(columns, ids);
  }

  /** The key's field ids in column order (empty for append-only tables). */
  public static List<Integer> fieldIds(Schema schema) {
    List<Integer> ids = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      if (schema.identifierFieldIds().contains(field.fieldId())) {
        ids.add(field.fieldId());
      }
    }
    return ids;
  }
}
