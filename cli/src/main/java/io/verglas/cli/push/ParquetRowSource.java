package io.verglas.cli.push;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * A Parquet file read with the table's schema, matching columns by name (files written by other
 * tools carry no Iceberg field ids). An {@code _op} column is read too when present.
 */
final class ParquetRowSource implements RowSource {
  private final CloseableIterable<Record> records;
  private final CloseableIterator<Record> iterator;
  private final Schema projection;
  private final long total;
  private long read;

  ParquetRowSource(Path file, Schema tableSchema) {
    List<Types.NestedField> columns = new ArrayList<>(tableSchema.columns());
    int opId = tableSchema.highestFieldId() + 1;
    columns.add(Types.NestedField.optional(opId, "_op", Types.StringType.get()));
    this.projection = new Schema(columns);
    this.total = rowCount(file);
    this.records = Parquet.read(Files.localInput(file.toFile()))
        .project(projection)
        .withNameMapping(MappingUtil.create(projection))
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema))
        .build();
    this.iterator = records.iterator();
  }

  private static long rowCount(Path file) {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      return Math.max(1, reader.getRecordCount());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read Parquet footer of " + file, e);
    }
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
    for (Types.NestedField column : projection.columns()) {
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
