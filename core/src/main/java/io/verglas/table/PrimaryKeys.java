package io.verglas.table;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
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

  /**
   * Parquet bloom filters on the key's columns, as Iceberg table properties (every writer of the
   * table reads them: our materializer, compaction, other engines). A key lookup prunes by them
   * where statistics cannot: keys arrive in any order, so min/max rarely exclude a row group.
   * Empty for append-only tables.
   */
  public static Map<String, String> bloomFilterProperties(Schema schema) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (int id : fieldIds(schema)) {
      properties.put(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + schema.findColumnName(id), "true");
    }
    return properties;
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
