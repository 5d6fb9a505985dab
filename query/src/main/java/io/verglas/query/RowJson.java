package io.verglas.query;

import java.nio.ByteBuffer;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Iceberg generic values as JSON-ready values: numbers, strings and booleans as they are,
 * dates and times as ISO-8601 strings, decimals as numbers, UUIDs as strings, binary as
 * base64, structs as objects, lists and maps as arrays and objects (map keys as strings).
 */
public final class RowJson {
  private RowJson() {}

  public static Map<String, Object> row(Record record) {
    Map<String, Object> row = new LinkedHashMap<>();
    List<Types.NestedField> fields = record.struct().fields();
    for (int i = 0; i < fields.size(); i++) {
      row.put(fields.get(i).name(), value(record.get(i)));
    }
    return row;
  }

  public static Object value(Object value) {
    if (value == null || value instanceof Number || value instanceof Boolean || value instanceof String) {
      return value;
    }
    if (value instanceof CharSequence || value instanceof TemporalAccessor || value instanceof java.util.UUID) {
      return value.toString();
    }
    if (value instanceof ByteBuffer buffer) {
      ByteBuffer copy = buffer.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      return Base64.getEncoder().encodeToString(bytes);
    }
    if (value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    if (value instanceof Record nested) {
      return row(nested);
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(item -> out.add(value(item)));
      return out;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(value(k)), value(v)));
      return out;
    }
    return value.toString();
  }
}
