package io.verglas.query;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * A keyed table written the way a primary-key writer leaves it, with a model of its live rows:
 * each commit is one data file of new row versions plus the deletes of the versions they
 * replace and of deleted keys: a deletion vector per older file on a V3 table (merged with its
 * previous one, which the commit removes), a position delete file on V2, or, when asked, an
 * equality delete file.
 */
final class KeyedTable {
  private final Table table;
  private final Function<Record, Object> key;
  /** key → its live row. */
  final Map<Object, Record> model = new LinkedHashMap<>();
  /** key → (data file location, position) of its live row. */
  private final Map<Object, Object[]> where = new HashMap<>();
  private final Map<String, DeleteFile> dvs = new HashMap<>();
  private final Map<String, DataFile> files = new HashMap<>();
  private int task;

  KeyedTable(Table table, Function<Record, Object> key) {
    this.table = table;
    this.key = key;
  }

  /** Writes {@code rows} (new keys or new versions) and deletes the rows of {@code deleted} keys. */
  void commit(List<Record> rows, List<Object> deleted) {
    RowDelta delta = table.newRowDelta();
    if (table.currentSnapshot() != null) {
      // without a start snapshot the DV check reads all history and takes the DV replaced here
      // for a concurrent one
      delta.validateFromSnapshot(table.currentSnapshot().snapshotId());
    }
    Map<String, List<Long>> replaced = new LinkedHashMap<>();
    for (List<Record> partition : byPartition(rows)) {
      DataFile file = write(partition);
      files.put(file.location(), file);
      delta.addRows(file);
      long position = 0;
      for (Record row : partition) {
        Object k = key.apply(row);
        forget(k, replaced);
        where.put(k, new Object[] {file.location(), position++});
        model.put(k, row);
      }
    }
    deleted.forEach(k -> {
      forget(k, replaced);
      model.remove(k);
    });
    if (!replaced.isEmpty()) {
      if (TableUtil.formatVersion(table) >= 3) {
        writeDvs(replaced).deleteFiles().forEach(dv -> {
          delta.addDeletes(dv);
          DeleteFile old = dvs.put(dv.referencedDataFile(), dv);
          if (old != null) {
            delta.removeDeletes(old);
          }
        });
      } else {
        delta.addDeletes(writePositionDeletes(replaced));
      }
    }
    delta.commit();
  }

  /** Deletes the rows of {@code deleted} keys with an equality delete file on the key columns. */
  void deleteByEquality(List<Record> deleted, int... keyFieldIds) {
    OutputFileFactory output = OutputFileFactory.builderFor(table, 0, task++).format(FileFormat.PARQUET).build();
    EqualityDeleteWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET).equalityFieldIds(keyFieldIds)
        .equalityDeleteRowSchema(table.schema()).build()
        .newEqualityDeleteWriter(output.newOutputFile(), table.spec(), null);
    try (EqualityDeleteWriter<Record> closing = writer) {
      deleted.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    deleted.forEach(row -> {
      where.remove(key.apply(row));
      model.remove(key.apply(row));
    });
    table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
  }

  private void forget(Object k, Map<String, List<Long>> replaced) {
    Object[] old = where.remove(k);
    if (old != null) {
      replaced.computeIfAbsent((String) old[0], f -> new ArrayList<>()).add((Long) old[1]);
    }
  }

  /** The rows of each partition of the table's spec, in their order. */
  private List<List<Record>> byPartition(List<Record> rows) {
    Map<StructLike, List<Record>> partitions = new LinkedHashMap<>();
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (Record row : rows) {
      partition.partition(wrapper.wrap(row));
      partitions.computeIfAbsent(partition.copy(), p -> new ArrayList<>()).add(row);
    }
    return new ArrayList<>(partitions.values());
  }

  private DataFile write(List<Record> rows) {
    OutputFileFactory output = OutputFileFactory.builderFor(table, 0, task++).format(FileFormat.PARQUET).build();
    PartitionKey partition = null;
    if (table.spec().isPartitioned()) {
      partition = new PartitionKey(table.spec(), table.schema());
      partition.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(rows.get(0)));
    }
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
        .dataSchema(table.schema()).build().newDataWriter(partition == null ? output.newOutputFile()
            : output.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private DeleteWriteResult writeDvs(Map<String, List<Long>> replaced) {
    BaseDeleteLoader loader = new BaseDeleteLoader(table.io()::newInputFile);
    OutputFileFactory output = OutputFileFactory.builderFor(table, 0, task++).format(FileFormat.PUFFIN).build();
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

  private DeleteFile writePositionDeletes(Map<String, List<Long>> replaced) {
    OutputFileFactory output = OutputFileFactory.builderFor(table, 0, task++).format(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET).build()
        .newPositionDeleteWriter(output.newOutputFile(), table.spec(), null);
    try (PositionDeleteWriter<Record> closing = writer) {
      replaced.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
          e.getValue().stream().sorted().forEach(p -> closing.write(PositionDelete.<Record>create().set(e.getKey(), p))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }
}
