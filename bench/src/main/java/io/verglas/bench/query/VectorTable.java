package io.verglas.bench.query;

import io.verglas.vector.VectorColumn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's table: a V3 Iceberg table ({@code id int, embedding fixed[4 * dim]}) in a
 * HadoopCatalog on a local directory, all base vectors in one Parquet file so that a row's
 * position is its ordinal in the dataset (rows appended later go to files of their own).
 */
final class VectorTable {
  private VectorTable() {}

  static Table create(Path warehouse, List<float[]> vectors) throws IOException {
    HadoopCatalog catalog = new HadoopCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("bench", Map.of("warehouse", warehouse.toUri().toString()));
    int dimension = vectors.get(0).length;
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.IntegerType.get()),
        Types.NestedField.required(2, "embedding", Types.FixedType.ofLength(4 * dimension)));
    Table table = catalog.createTable(TableIdentifier.of("bench", "images"), schema,
        PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "3",
            VectorColumn.COLUMN, "embedding", VectorColumn.DIMENSION, Integer.toString(dimension),
            VectorColumn.METRIC, "l2"));
    append(table, 0, vectors);
    return table;
  }

  /** Appends one data file of {@code vectors}, ids from {@code firstId}; returns the file. */
  static DataFile append(Table table, int firstId, List<float[]> vectors) throws IOException {
    DataFile file = write(table, firstId, vectors);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  private static DataFile write(Table table, int firstId, List<float[]> vectors)
      throws IOException {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, firstId)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      for (int i = 0; i < vectors.size(); i++) {
        GenericRecord row = GenericRecord.create(table.schema());
        row.setField("id", firstId + i);
        row.setField("embedding", littleEndian(vectors.get(i)));
        closing.write(row);
      }
    }
    return writer.toDataFile();
  }

  private static byte[] littleEndian(float[] vector) {
    ByteBuffer bytes = ByteBuffer.allocate(4 * vector.length).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(vector);
    return bytes.array();
  }
}
