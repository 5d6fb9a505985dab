package io.verglas.maintenance.compact;

import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PartitionUtil;

/**
 * The live rows of one data file: every delete file of its scan task (deletion vectors,
 * position and equality deletes) applied, projected to the requested schema. Any file format the
 * format registry reads.
 *
 * <p>The requested schema may hold the row-lineage columns ({@link MetadataColumns#ROW_ID},
 * {@link MetadataColumns#LAST_UPDATED_SEQUENCE_NUMBER}): Iceberg's reader materializes them, a
 * value the file holds as it is, a null from the file's {@code first_row_id} plus the row's
 * position and from its sequence number (the constants of the scan task).
 */
final class LiveRows {
  private LiveRows() {}

  static CloseableIterable<Record> open(Table table, Schema schema, FileScanTask task) {
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, schema);
    ReadBuilder<Record, Object> read = FormatModelRegistry.readBuilder(task.file().format(),
        Record.class, table.io().newInputFile(task.file().location()));
    read.project(deletes.requiredSchema());
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    if (!constants.isEmpty()) {
      read.idToConstant(constants);
    }
    return CloseableIterable.transform(deletes.filter(read.build()), row -> project(row, schema));
  }

  /** Drops the columns the delete filter needed (e.g. {@code _pos}) that were not requested. */
  private static Record project(Record row, Schema schema) {
    if (row.struct().fields().size() == schema.columns().size()) {
      return row;
    }
    Record out = org.apache.iceberg.data.GenericRecord.create(schema);
    for (int i = 0; i < schema.columns().size(); i++) {
      out.set(i, row.getField(schema.columns().get(i).name()));
    }
    return out;
  }
}
