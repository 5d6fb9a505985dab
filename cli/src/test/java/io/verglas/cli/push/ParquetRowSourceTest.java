package io.verglas.cli.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetRowSourceTest {
  @TempDir Path dir;

  @Test
  void handsOnColumnsByNameWhateverTheFileFieldIds() throws Exception {
    // ids unlike any table's: the rows carry column names, which the server matches
    Schema fileSchema = new Schema(
        Types.NestedField.optional(7, "name", Types.StringType.get()),
        Types.NestedField.required(9, "id", Types.LongType.get()),
        Types.NestedField.optional(11, "_op", Types.StringType.get()));
    Path file = dir.resolve("rows.parquet");
    try (FileAppender<Record> appender = Parquet.write(Files.localOutput(file.toFile()))
        .schema(fileSchema).createWriterFunc(GenericParquetWriter::create).build()) {
      appender.add(record(fileSchema, "a", 1L, null));
      appender.add(record(fileSchema, "b", 2L, "D"));
    }

    List<Map<String, Object>> rows = new ArrayList<>();
    try (ParquetRowSource source = new ParquetRowSource(file)) {
      while (source.hasNext()) {
        rows.add(source.next());
      }
      assertThat(source.progress()).isEqualTo(1.0);
    }

    assertThat(rows).hasSize(2);
    assertThat(rows.get(0)).containsEntry("id", 1L).containsEntry("name", "a").doesNotContainKey("_op");
    assertThat(rows.get(1)).containsEntry("id", 2L).containsEntry("_op", "D");
  }

  private static Record record(Schema schema, String name, long id, String op) {
    GenericRecord record = GenericRecord.create(schema);
    record.setField("name", name);
    record.setField("id", id);
    record.setField("_op", op);
    return record;
  }
}
