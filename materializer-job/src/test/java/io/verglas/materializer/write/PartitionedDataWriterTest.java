package io.verglas.materializer.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.row.RowCodec;
import java.io.Closeable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Positions announced on the caller's thread match where the background thread put the rows. */
class PartitionedDataWriterTest {
  static final String[] REGIONS = {"eu", "us", "ap"};

  @TempDir Path dir;
  Catalog catalog;
  Table table;
  BackgroundWrites background;

  @BeforeEach
  void setUp() {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.createUsers(catalog, "db", "users");
    background = new BackgroundWrites("test-data-writer");
  }

  @AfterEach
  void tearDown() throws Exception {
    background.close();
    ((Closeable) catalog).close();
  }

  @Test
  void everyRowLandsAtItsAnnouncedPosition() throws Exception {
    int rows = 3 * PartitionedDataWriter.BATCH + 17; // several batches per file, one partial
    Map<String, Map<Long, Integer>> announced = new HashMap<>();
    List<DataFile> files;
    try (PartitionedDataWriter writer = new PartitionedDataWriter(table, 0, 0, background)) {
      for (int id = 0; id < rows; id++) {
        PartitionedDataWriter.FilePosition at = writer.write(payload(user(id)));
        announced.computeIfAbsent(at.path(), path -> new HashMap<>()).put(at.position(), id);
      }
      files = writer.complete();
    }

    assertThat(files).hasSize(REGIONS.length);
    long total = 0;
    for (DataFile file : files) {
      List<Record> written = readFile(file);
      assertThat(written).hasSize((int) file.recordCount());
      Map<Long, Integer> expected = announced.get(file.location());
      assertThat(expected).hasSize(written.size());
      for (int position = 0; position < written.size(); position++) {
        assertThat(written.get(position).getField("id")).isEqualTo(expected.get((long) position));
      }
      total += written.size();
    }
    assertThat(total).isEqualTo(rows);
  }

  @Test
  void aFailedEncodingFailsCompleteAndLeavesNoFile() throws Exception {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.IntegerType.get()),
        Types.NestedField.optional(2, "amount", Types.DecimalType.of(9, 2)));
    Table priced = TestingTables.create(catalog, TableIdentifier.of("db", "priced"), schema,
        PartitionSpec.unpartitioned());
    GenericRecord bad = GenericRecord.create(schema);
    bad.setField("id", 1);
    bad.setField("amount", new BigDecimal("12345678901.25")); // more digits than decimal(9, 2)
    List<String> paths = new ArrayList<>();
    try (PartitionedDataWriter writer = new PartitionedDataWriter(priced, 0, 0, background)) {
      paths.add(writer.write(RowCodec.encode(bad, schema)).path()); // fails only when encoded
      assertThatThrownBy(writer::complete).hasMessageContaining("decimal(9,2)");
    }
    assertThat(priced.io().newInputFile(paths.get(0)).exists()).isFalse();
  }

  @Test
  void aRowTheSchemaCannotTakeFailsOnTheCallersThreadAndWritesNothing() throws Exception {
    GenericRecord keyless = (GenericRecord) user(1);
    keyless.setField("id", null);
    try (PartitionedDataWriter writer = new PartitionedDataWriter(table, 0, 0, background)) {
      assertThatThrownBy(() -> writer.write(new byte[] {1, 0, 0}))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
      assertThatThrownBy(() -> writer.write(payload(keyless)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("required column id is null");
      assertThat(writer.complete()).isEmpty();
    }
  }

  @Test
  void filesOfWritersWithTheSameSubtaskAndAttemptHaveDistinctShortNames() throws Exception {
    List<String> names = new ArrayList<>();
    for (int interval = 0; interval < 3; interval++) {
      try (PartitionedDataWriter writer = new PartitionedDataWriter(table, 0, 0, background)) {
        writer.write(payload(user(1)));
        for (DataFile file : writer.complete()) {
          String location = file.location();
          names.add(location.substring(location.lastIndexOf('/') + 1));
        }
      }
    }
    assertThat(names).hasSize(3).doesNotHaveDuplicates()
        .allMatch(name -> name.matches("00000-0-[A-Za-z0-9_-]{22}-00001\\.parquet"), "short");
  }

  @Test
  void dataFilesAreCompressedAtLevelOneUnlessTheTableSetsALevel() throws Exception {
    assertThat(table.properties()).containsEntry(TableProperties.PARQUET_COMPRESSION, "zstd")
        .doesNotContainKey(TableProperties.PARQUET_COMPRESSION_LEVEL);
    long unset = bytesWritten(table);
    long levelOne = bytesWritten(usersAtLevel("1"));
    long levelThree = bytesWritten(usersAtLevel("3"));
    assertThat(unset).isEqualTo(levelOne);
    assertThat(levelThree).isNotEqualTo(levelOne);
  }

  private Table usersAtLevel(String level) {
    Table users = TestingTables.createUsers(catalog, "db", "users_level_" + level);
    users.updateProperties().set(TableProperties.PARQUET_COMPRESSION_LEVEL, level).commit();
    return users;
  }

  /** The bytes of the files that the same 20 000 rows make in {@code target}. */
  private long bytesWritten(Table target) throws Exception {
    try (PartitionedDataWriter writer = new PartitionedDataWriter(target, 0, 0, background)) {
      for (int id = 0; id < 20_000; id++) {
        GenericRecord record = (GenericRecord) user(id);
        // Words from a small vocabulary in a scrambled order: text that levels compress apart.
        long mixed = id * 0x9E3779B97F4A7C15L;
        record.setField("name", "user-" + (mixed >>> 52) + "-" + Long.toString(mixed >>> 40, 36));
        writer.write(payload(record));
      }
      return writer.complete().stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }
  }

  private byte[] payload(Record record) {
    return RowCodec.encode(record, table.schema());
  }

  private Record user(int id) {
    GenericRecord record = GenericRecord.create(table.schema());
    record.setField("id", id);
    record.setField("name", "user-" + id);
    record.setField("region", REGIONS[id % REGIONS.length]);
    record.setField("value", (long) id * 10);
    return record;
  }

  private List<Record> readFile(DataFile file) throws IOException {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
        .project(table.schema())
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
        .build()) {
      records.forEach(record -> rows.add(record.copy()));
    }
    return rows;
  }
}
