package io.verglas.cli.table;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Parses a compact column list: {@code "id long, name string, amount decimal(10,2), ts
 * timestamptz not null, embedding list<float>"}. Types are Iceberg's primitive type names and
 * {@code list<T>} of one of them (optional elements); columns are nullable unless followed by
 * {@code not null}. Field ids are given in order, a list's element right after its column.
 */
public final class ColumnsParser {
  private static final String LIST = "list<";

  private ColumnsParser() {}

  public static Schema parse(String columns) {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (String column : splitTopLevel(columns)) {
      String text = column.trim();
      if (text.isEmpty()) {
        continue;
      }
      boolean required = text.toLowerCase().endsWith(" not null");
      if (required) {
        text = text.substring(0, text.length() - " not null".length()).trim();
      }
      int space = text.indexOf(' ');
      if (space < 0) {
        throw new IllegalArgumentException("Invalid column: '" + column.trim()
            + "' (expected NAME TYPE, e.g. 'id long')");
      }
      String name = text.substring(0, space).trim();
      int fieldId = id++;
      String typeText = text.substring(space + 1).trim();
      Type type = isList(typeText) ? Types.ListType.ofOptional(id++,
          type(typeText.substring(LIST.length(), typeText.length() - 1).trim(), column))
          : type(typeText, column);
      fields.add(required ? Types.NestedField.required(fieldId, name, type)
          : Types.NestedField.optional(fieldId, name, type));
    }
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("Invalid columns: none given");
    }
    return new Schema(fields);
  }

  private static boolean isList(String type) {
    return type.toLowerCase().startsWith(LIST) && type.endsWith(">");
  }

  private static Type type(String text, String column) {
    try {
      return Types.fromPrimitiveString(text.toLowerCase().replace(" ", ""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid column: '" + column.trim() + "': unknown type '"
          + text + "' (boolean, int, long, float, double, decimal(P,S), date, time, timestamp, "
          + "timestamptz, string, uuid, fixed[N], binary, or list<T> of one of them)");
    }
  }

  /** Splits on commas outside parentheses, so decimal(10,2) stays whole. */
  private static List<String> splitTopLevel(String text) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(text.substring(start));
    return parts;
  }
}
