package io.verglas.query;

import java.util.AbstractList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Rows of typed values (Iceberg generic values in a schema's column order) seen as JSON-ready
 * maps, column name to {@link RowJson#value}: each map is made when it is read, so an answer
 * keeps one copy of its rows whichever format it is written in.
 */
final class JsonRows extends AbstractList<Map<String, Object>> {
  private final List<Types.NestedField> columns;
  private final List<Object[]> values;

  JsonRows(Schema schema, List<Object[]> values) {
    this.columns = schema.columns();
    this.values = values;
  }

  static Map<String, Object> row(List<Types.NestedField> columns, Object[] typed) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int c = 0; c < typed.length; c++) {
      row.put(columns.get(c).name(), RowJson.value(typed[c]));
    }
    return row;
  }

  @Override
  public Map<String, Object> get(int index) {
    return row(columns, values.get(index));
  }

  @Override
  public int size() {
    return values.size();
  }
}
