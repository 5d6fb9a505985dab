package io.verglas.maintenance.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes data files and deletion vectors into the users table ({@code id, name, region, value},
 * partitioned by region) with Iceberg's own writers, and reads the table back as a model map.
 */
public final class TestingFiles {
  private static int tasks;

  private TestingFiles() {}

  public static Record user(Table table, int id, String name, String region, long value) {
    GenericRecord record = GenericRecord.create(table.schema());
    record.setField("id", id);
    record.setField("name", name);
    record.setField("region", region);
    record.setField("value", value);
    return record;
  }

  /** Writes one data file of {@code rows} (all of one region) and appends it. */
  public static DataFile append(Table table, List<Record> rows) {
    DataFile file = write(table, rows);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  public static synchronized DataFile write(Table table, List<Record> rows) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    partition.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(rows.get(0)));
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, tasks++)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(files.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** Commits a fresh deletion vector for {@code file} (which must have none yet). */
  public static DeleteFile deletePositions(Table table, DataFile file, long... positions) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, nextTask())
        .format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> null);
    try (BaseDVFileWriter closing = writer) {
      for (long position : positions) {
        closing.delete(file.location(), position, table.spec(), file.partition());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteFile dv = writer.result().deleteFiles().get(0);
    RowDelta delta = table.newRowDelta().addDeletes(dv);
    delta.commit();
    return dv;
  }

  private static synchronized int nextTask() {
    return tasks++;
  }

  /** The table's rows as {@code id → "name/region/value"}. */
  public static Map<Integer, String> contents(Table table) {
    table.refresh();
    Map<Integer, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        String previous = rows.put((Integer) r.getField("id"),
            r.getField("name") + "/" + r.getField("region") + "/" + r.getField("value"));
        if (previous != null) {
          throw new AssertionError("Key " + r.getField("id") + " appears twice");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * The row lineage of the table's live rows as
   * {@code id → [_row_id, _last_updated_sequence_number]}, read by Iceberg's generic reader with
   * the metadata columns projected.
   */
  public static Map<Integer, List<Long>> lineage(Table table) {
    table.refresh();
    Map<Integer, List<Long>> rows = new TreeMap<>();
    Schema projection = MetadataColumns.schemaWithRowLineage(table.schema());
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).project(projection)
        .build()) {
      for (Record r : records) {
        rows.put((Integer) r.getField("id"), List.of(
            (Long) r.getField(MetadataColumns.ROW_ID.name()),
            (Long) r.getField(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
