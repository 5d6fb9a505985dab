package io.verglas.bench.materialize;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/** {@link UpsertRows} as Flink {@link RowData} (strings as {@link StringData}), for the peers. */
final class FlinkRows implements MapFunction<Long, RowData> {
  private static final long serialVersionUID = 1L;
  /** The rows' Flink type: the benchmark table's schema. */
  static final RowType ROW_TYPE = FlinkSchemaUtil.convert(UpsertRows.SCHEMA);
  private final long keys;

  FlinkRows(long keys) {
    this.keys = keys;
  }

  @Override
  public RowData map(Long i) {
    Object[] values = UpsertRows.values(i, keys);
    GenericRowData row = new GenericRowData(values.length);
    for (int c = 0; c < values.length; c++) {
      Object value = values[c];
      row.setField(c, value instanceof String s ? StringData.fromString(s) : value);
    }
    return row;
  }
}
