package io.verglas.vector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * A real Iceberg V3 table in a HadoopCatalog on a temporary directory, with a vector column
 * ({@code fixed} or {@code list<float>}) declared in its properties, written with Iceberg's own
 * data and deletion-vector writers.
 */
final class TestingVectorTable {
  private static int tasks;

  private TestingVectorTable() {}

  static HadoopCatalog catalog(Path warehouse) {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("test", Map.of("warehouse", warehouse.toUri().toString()));
    return catalog;
  }

  static Table create(HadoopCatalog catalog, String name, int dimension, boolean fixed) {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.IntegerType.get()),
        Types.NestedField.optional(2, "embedding", fixed
            ? Types.FixedType.ofLength(4 * dimension)
            : Types.ListType.ofRequired(3, Types.FloatType.get())));
    return catalog.createTable(TableIdentifier.of(Namespace.of("db"), name), schema,
        PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "3",
            VectorColumn.COLUMN, "embedding", VectorColumn.DIMENSION, Integer.toString(dimension),
            VectorColumn.METRIC, "l2"));
  }

  /** Appends one data file holding {@code vectors} with ids from {@code firstId}. */
  static DataFile append(Table table, int firstId, List<float[]> vectors) {
    DataFile file = write(table, records(table, firstId, vectors));
    table.newAppend().appendFile(file).commit();
    return file;
  }

  /**
   * An update in one commit, as the materializer writes it: a deletion vector for
   * {@code positions} of {@code file} (which has none yet) and a data file holding the new
   * {@code vectors} with ids from {@code firstId}. Returns the new data file.
   */
  static DataFile update(Table table, DataFile file, long[] positions, int firstId,
      List<float[]> vectors) {
    DataFile added = write(table, records(table, firstId, vectors));
    table.newRowDelta().addRows(added).addDeletes(writeDv(table, file, positions)).commit();
    return added;
  }

  /**
   * Rewrites every data file of the table, deletes applied, into one (what compaction does):
   * a {@code replace} snapshot.
   */
  static Compacted compact(Table table) {
    RewriteFiles rewrite = table.newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId());
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles();
        CloseableIterable<Record> live = IcebergGenerics.read(table).build()) {
      for (FileScanTask task : tasks) {
        rewrite.deleteFile(task.file());
        task.deletes().forEach(rewrite::deleteFile);
      }
      List<Record> rows = new ArrayList<>();
      live.forEach(row -> rows.add(row.copy()));
      DataFile compacted = write(table, rows);
      rewrite.addFile(compacted).commit();
      return new Compacted(compacted, rows.stream().map(row -> (Integer) row.getField("id"))
          .toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The data file a compaction wrote and the ids of its rows, by position. */
  record Compacted(DataFile file, List<Integer> ids) {}

  private static List<Record> records(Table table, int firstId, List<float[]> vectors) {
    boolean fixed = table.schema().findField("embedding").type() instanceof Types.FixedType;
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < vectors.size(); i++) {
      GenericRecord row = GenericRecord.create(table.schema());
      row.setField("id", firstId + i);
      row.setField("embedding", fixed ? bytes(vectors.get(i)) : list(vectors.get(i)));
      rows.add(row);
    }
    return rows;
  }

  private static synchronized DataFile write(Table table, List<Record> rows) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, tasks++)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** Commits a deletion vector for {@code positions} of {@code file} (which has none yet). */
  static DeleteFile delete(Table table, DataFile file, long... positions) {
    DeleteFile dv = writeDv(table, file, positions);
    table.newRowDelta().addDeletes(dv).commit();
    return dv;
  }

  private static DeleteFile writeDv(Table table, DataFile file, long... positions) {
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
    return writer.result().deleteFiles().get(0);
  }

  private static synchronized int nextTask() {
    return tasks++;
  }

  private static byte[] bytes(float[] vector) {
    ByteBuffer bytes = ByteBuffer.allocate(4 * vector.length).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(vector);
    return bytes.array();
  }

  private static List<Float> list(float[] vector) {
    List<Float> list = new ArrayList<>(vector.length);
    for (float v : vector) {
      list.add(v);
    }
    return list;
  }
}
