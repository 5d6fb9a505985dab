package io.verglas.materializer.testing;

import io.verglas.catalog.Catalogs;
import io.verglas.row.RowCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/** A SQLite catalog with a local warehouse, for unit tests that need real tables but no S3. */
public final class LocalTables {
  private LocalTables() {}

  public static Map<String, String> catalogProperties(Path dir) {
    return Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        dir.resolve("warehouse").toUri().toString(), Map.of());
  }

  public static Catalog catalog(Path dir) {
    return Catalogs.load("verglas", catalogProperties(dir));
  }

  public static Record user(Table table, int id, String name, long value) {
    GenericRecord record = GenericRecord.create(table.schema());
    record.setField("id", id);
    record.setField("name", name);
    record.setField("value", value);
    return record;
  }

  public static byte[] payload(Table table, Record record) {
    return RowCodec.encode(record, table.schema());
  }

  /** Writes an unpartitioned data file of the given rows. */
  public static DataFile write(Table table, List<Record> rows) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 9, 9)
        .format(FileFormat.PARQUET).build();
    EncryptedOutputFile output = files.newOutputFile();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build()
        .newDataWriter(output, table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  public static String json(Table table, DataFile file) {
    return ContentFileParser.toJson(file, table.spec());
  }
}
