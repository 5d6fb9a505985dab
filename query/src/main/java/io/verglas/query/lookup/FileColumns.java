package io.verglas.query.lookup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Where a data file keeps the lookup's columns: the file's top-level Parquet columns matched to
 * Iceberg fields by field id (the ids Iceberg writes), and whether the key reader can read them.
 * A file without ids (an imported file read through a name mapping), a column stored in a way
 * Iceberg's writers do not use, or a projected column the file lacks that has a default value
 * is left to the generic reader.
 */
final class FileColumns {
  private final MessageType fileSchema;
  private final Map<Integer, Integer> byId = new HashMap<>();

  FileColumns(MessageType fileSchema) {
    this.fileSchema = fileSchema;
    List<Type> fields = fileSchema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getId() != null) {
        byId.put(fields.get(i).getId().intValue(), i);
      }
    }
  }

  /** Whether the key reader can read every key column and every projected column of this file. */
  boolean readable(List<Types.NestedField> keys, List<Types.NestedField> projection) {
    for (Types.NestedField key : keys) {
      if (!readable(key, true)) {
        return false;
      }
    }
    for (Types.NestedField field : projection) {
      if (!readable(field, false)) {
        return false;
      }
    }
    return true;
  }

  private boolean readable(Types.NestedField field, boolean key) {
    Integer index = byId.get(field.fieldId());
    if (index == null) {
      return !key && field.initialDefault() == null;
    }
    Type column = fileSchema.getType(index);
    return column.isPrimitive() && column.getRepetition() != Type.Repetition.REPEATED
        && ColumnValues.readable(field.type(), column.asPrimitiveType());
  }

  /** The file's column of {@code field}, or null when the file has none. */
  PrimitiveType column(Types.NestedField field) {
    Integer index = byId.get(field.fieldId());
    return index == null ? null : fileSchema.getType(index).asPrimitiveType();
  }

  /** The file's columns of {@code fields} present in it, as a requested schema, in that order. */
  MessageType select(List<Types.NestedField> fields) {
    List<Type> columns = new ArrayList<>();
    for (Types.NestedField field : fields) {
      PrimitiveType column = column(field);
      if (column != null) {
        columns.add(column);
      }
    }
    return new MessageType(fileSchema.getName(), columns);
  }
}
