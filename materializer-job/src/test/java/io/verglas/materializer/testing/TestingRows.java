package io.verglas.materializer.testing;

import io.verglas.materializer.source.WalRow;
import io.verglas.row.RowCodec;
import io.verglas.table.PrimaryKeys;
import io.verglas.wal.WalLayout;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;

/**
 * {@link WalRow}s as the source would emit them, for driving the writer directly: each row is
 * its own one-row segment of stream {@code s1}, stamped with an increasing clock, so rows are
 * ordered as they are made and a replayed row keeps its WAL position.
 */
public final class TestingRows {
  private final Table table;
  private final String tableName;
  private long hlc = 1L << 20;
  private long sequence;

  public TestingRows(Table table) {
    this.table = table;
    this.tableName = table.name().substring(table.name().indexOf('.') + 1);
  }

  public WalRow upsert(Record record) {
    return row(record, WalRow.UPSERT);
  }

  /** A delete of the key of {@code record} (other columns are ignored). */
  public WalRow delete(Record record) {
    return row(record, WalRow.DELETE);
  }

  private WalRow row(Record record, byte op) {
    WalRow row = new WalRow();
    row.tableUuid = table.uuid().toString();
    row.tableName = tableName;
    row.op = op;
    row.hlc = hlc += 1 << 16;
    row.streamId = "s1";
    row.sequence = sequence++;
    row.batch = 0;
    row.row = 0;
    row.ordinal = 0;
    row.segmentRowCount = 1;
    row.segmentKey = WalLayout.defaults().segmentKey("s1", row.sequence);
    row.payload = RowCodec.encode(record, table.schema());
    row.schemaId = table.schema().schemaId();
    row.key = RowCodec.encodeKey(record, table.schema(), PrimaryKeys.fieldIds(table.schema()));
    row.routingKey = WalRow.keyedRoutingKey(row.tableUuid, row.key);
    return row;
  }
}
