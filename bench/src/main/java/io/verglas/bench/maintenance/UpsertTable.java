package io.verglas.bench.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Builds the benchmark's table the way a primary-key writer leaves it: {@code commits} small
 * upsert commits, each one data file of new row versions plus a deletion vector per older file
 * that held a replaced version (merged with that file's previous DV, which the commit removes).
 * Keys are drawn at random, so most commits touch many older files.
 */
public final class UpsertTable {
  public static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "value", Types.LongType.get()),
      Types.NestedField.optional(4, "payload", Types.StringType.get()));

  private final Table table;
  private final Random random = new Random(20261129L);
  /** key → (data file location, position) of its live version. */
  private final Map<Long, Object[]> index = new HashMap<>();
  /** data file location → its current DV. */
  private final Map<String, DeleteFile> dvs = new HashMap<>();
  private final Map<String, DataFile> files = new HashMap<>();
  private int task;

  public UpsertTable(Table table) {
    this.table = table;
  }

  /** One commit of {@code rows} upserts of keys drawn at random from [0, keys). */
  public void commit(int rows, long keys) {
    List<Record> batch = new ArrayList<>();
    Map<Long, Record> byKey = new TreeMap<>();
    for (int i = 0; i < rows; i++) {
      long key = (long) (random.nextDouble() * keys);
      byKey.put(key, row(key));
    }
    batch.addAll(byKey.values());
    DataFile file = write(batch);
    Map<String, List<Long>> replaced = new TreeMap<>();
    long position = 0;
    for (Record record : batch) {
      Object[] old = index.put((Long) record.getField("id"), new Object[] {file.location(), position++});
      if (old != null) {
        replaced.computeIfAbsent((String) old[0], f -> new ArrayList<>()).add((Long) old[1]);
      }
    }
    files.put(file.location(), file);
    RowDelta delta = table.newRowDelta().addRows(file);
    if (table.currentSnapshot() != null) {
      // Without a start snapshot the DV check scans all history and takes the DV replaced here
      // for a concurrent one.
      delta.validateFromSnapshot(table.currentSnapshot().snapshotId());
    }
    DeleteWriteResult result = writeDvs(replaced);
    // The new DV holds the old one's positions too (merged by the writer): replace it.
    result.deleteFiles().forEach(dv -> {
      delta.addDeletes(dv);
      DeleteFile old = dvs.put(dv.referencedDataFile(), dv);
      if (old != null) {
        delta.removeDeletes(old);
      }
    });
    delta.commit();
  }

  private Record row(long key) {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("id", key);
    record.setField("name", "name-" + Long.toHexString(random.nextLong()));
    record.setField("value", random.nextLong());
    record.setField("payload", Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()));
    return record;
  }

  private DataFile write(List<Record> rows) {
    OutputFileFactory output = OutputFileFactory.builderFor(table, 0, task++)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(SCHEMA).build()
        .newDataWriter(output.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private DeleteWriteResult writeDvs(Map<String, List<Long>> replaced) {
    BaseDeleteLoader loader = new BaseDeleteLoader(path -> table.io().newInputFile(path));
    OutputFileFactory output = OutputFileFactory.builderFor(table, 0, task++)
        .format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(output, path -> previous(loader, path));
    try (BaseDVFileWriter closing = writer) {
      replaced.forEach((path, positions) -> positions.forEach(p ->
          closing.delete(path, p, table.spec(), files.get(path).partition())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result();
  }

  private PositionDeleteIndex previous(BaseDeleteLoader loader, String path) {
    DeleteFile dv = dvs.get(path);
    return dv == null ? null : loader.loadPositionDeletes(List.of(dv), path);
  }
}
