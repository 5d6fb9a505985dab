package io.verglas.cli.push;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet file read in its own schema, its rows handed on by column name. Why not the table's
 * schema: files written by other tools carry no Iceberg field ids, or ids from another table,
 * so only names line up; the server then checks the columns against the table as for any
 * client. Nested columns are refused (ingest takes primitive columns).
 */
final class ParquetRowSource implements RowSource {
  private final Schema fileSchema;
  private final long total;
  private final CloseableIterable<Record> records;
  private final CloseableIterator<Record> iterator;
  private long read;

  ParquetRowSource(Path file) {
    MessageType type;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      type = reader.getFooter().getFileMetaData().getSchema();
      this.total = Math.max(1, reader.getRecordCount());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the Parquet footer of " + file, e);
    }
    boolean hasIds = ParquetSchemaUtil.hasIds(type);
    this.fileSchema = ParquetSchemaUtil.convert(hasIds ? type : ParquetSchemaUtil.addFallbackIds(type));
    for (Types.NestedField column : fileSchema.columns()) {
      if (!column.type().isPrimitiveType()) {
        throw new IllegalArgumentException("Cannot push " + file + ": column '" + column.name()
            + "' is nested (" + column.type() + "); Parquet files are pushed with primitive"
            + " columns only yet (push lists as JSON lines or over Flight)");
      }
    }
    Parquet.ReadBuilder builder = Parquet.read(Files.localInput(file.toFile()))
        .project(fileSchema)
        .createReaderFunc(parquetType -> GenericParquetReaders.buildReader(fileSchema, parquetType));
    if (!hasIds) {
      builder.withNameMapping(MappingUtil.create(fileSchema));
    }
    this.records = builder.build();
    this.iterator = records.iterator();
  }

  @Override
  public boolean hasNext() {
    return iterator.hasNext();
  }

  @Override
  public Map<String, Object> next() {
    Record record = iterator.next();
    read++;
    Map<String, Object> row = new LinkedHashMap<>();
    for (Types.NestedField column : fileSchema.columns()) {
      Object value = record.getField(column.name());
      if (value != null || !column.name().equals("_op")) {
        row.put(column.name(), value);
      }
    }
    return row;
  }

  @Override
  public double progress() {
    return Math.min(1.0, read / (double) total);
  }

  @Override
  public void close() {
    try {
      iterator.close();
      records.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
