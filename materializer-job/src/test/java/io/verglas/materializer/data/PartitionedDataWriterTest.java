package io.verglas.materializer.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.data.PartitionedDataWriter.Staging;
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

/** Positions announced on the caller's thread match where the encoding lanes put the rows. */
class PartitionedDataWriterTest {
  static final String[] REGIONS = {"eu", "us", "ap"};

  @TempDir Path dir;
  Catalog catalog;
  Table table;
  List<BackgroundWrites> lanes;

  @BeforeEach
  void setUp() {
    catalog = LocalTables.catalog(dir);
    table = TestingTables.createUsers(catalog, "db", "users");
    lanes = List.of(new BackgroundWrites("test-lane-0"), new BackgroundWrites("test-lane-1"));
  }

  @AfterEach
  void tearDown() throws Exception {
    lanes.forEach(BackgroundWrites::close);
    ((Closeable) catalog).close();
  }

  @Test
  void everyRowLandsAtItsAnnouncedPosition() throws Exception {
    int rows = 3 * PartitionedDataWriter.BATCH + 17; // several batches per file, one partial
    Map<String, Map<Long, Integer>> announced;
    List<DataFile> files;
    try (PartitionedDataWriter writer = writer(table, Staging.PER_BATCH)) {
      announced = writeUsers(writer, rows);
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
  void aLargePartitionSpreadsOverTheLanesAndItsRowsStillLandWhereAnnounced() throws Exception {
    Table flat = TestingTables.create(catalog, TableIdentifier.of("db", "flat"),
        TestingTables.USERS, PartitionSpec.unpartitioned()); // the same schema as the users
    int rows = 2 * PartitionedDataWriter.LANE_ROWS + 5;
    Map<String, Map<Long, Integer>> announced;
    List<DataFile> files;
    try (PartitionedDataWriter writer = writer(flat, Staging.UNTIL_COMPLETE)) {
      announced = writeUsers(writer, rows);
      for (int id = rows - 4; id < rows; id++) { // the last rows sit on both lanes' files
        Record renamed = user(id);
        renamed.setField("name", "renamed-" + id);
        PartitionedDataWriter.FilePosition at = find(announced, id);
        assertThat(writer.replace(at.path(), at.position(), payload(renamed))).isNotNull();
      }
      files = writer.complete();
    }

    assertThat(files).hasSize(2);
    assertThat(files.get(0).recordCount() - files.get(1).recordCount())
        .isEqualTo(PartitionedDataWriter.LANE_ROWS + 1);
    for (DataFile file : files) {
      List<Record> written = readFile(file);
      Map<Long, Integer> expected = announced.get(file.location());
      assertThat(written).hasSize(expected.size());
      for (int position = 0; position < written.size(); position++) {
        int id = expected.get((long) position);
        assertThat(written.get(position).getField("id")).isEqualTo(id);
        assertThat(written.get(position).getField("name"))
            .isEqualTo(id >= rows - 4 ? "renamed-" + id : "user-" + id);
      }
    }
  }

  @Test
  void aFileOpensItsParquetWriterOnlyWithItsFirstEncodedBatch() throws Exception {
    Table flat = TestingTables.create(catalog, TableIdentifier.of("db", "flat"),
        TestingTables.USERS, PartitionSpec.unpartitioned()); // the same schema as the users
    try (PartitionedDataWriter staged = writer(flat, Staging.UNTIL_COMPLETE);
        PartitionedDataWriter perBatch = writer(flat, Staging.PER_BATCH)) {
      for (int id = 0; id < PartitionedDataWriter.BATCH; id++) {
        staged.write(payload(user(id)));
        perBatch.write(payload(user(id)));
        if (id == 0) {
          assertThat(perBatch.encodingFiles()).isZero(); // a staged row opens no writer
        }
      }
      lanes.get(0).await();
      assertThat(staged.encodingFiles()).isZero();
      assertThat(perBatch.encodingFiles()).isOne();
      // Opened with every row staged, the file's key bloom filter is sized for its rows, not
      // Parquet's 1 MB.
      assertThat(staged.complete()).singleElement().satisfies(file -> {
        assertThat(file.recordCount()).isEqualTo(PartitionedDataWriter.BATCH);
        assertThat(file.fileSizeInBytes()).isLessThan(64 << 10);
      });
      assertThat(perBatch.complete()).singleElement().satisfies(file -> assertThat(
          file.recordCount()).isEqualTo(PartitionedDataWriter.BATCH));
    }
  }

  @Test
  void stagedPerBatchARowIsReplacedInPlaceOnlyUntilItsBatchIsEncoded() throws Exception {
    Table flat = TestingTables.create(catalog, TableIdentifier.of("db", "flat"),
        TestingTables.USERS, PartitionSpec.unpartitioned()); // the same schema as the users
    int rows = PartitionedDataWriter.BATCH + 10;
    List<DataFile> files;
    try (PartitionedDataWriter writer = writer(flat, Staging.PER_BATCH)) {
      String path = null;
      for (int id = 0; id < rows; id++) {
        path = writer.write(payload(user(id))).path();
      }
      Record encoded = user(0);
      encoded.setField("name", "too late");
      Record staged = user(rows - 1);
      staged.setField("name", "in place");
      assertThat(writer.replace(path, 0, payload(encoded))).isNull();
      assertThat(writer.replace(path, rows - 1, payload(staged))).isNotNull();
      assertThat(writer.replacements())
          .isEqualTo(new PartitionedDataWriter.Replacements(rows, 1, 1));
      files = writer.complete();
    }

    List<Record> written = readFile(files.get(0));
    assertThat(files).hasSize(1); // per batch, a partition never spreads over the lanes
    assertThat(written).hasSize(rows);
    assertThat(written.get(0).getField("name")).isEqualTo("user-0");
    assertThat(written.get(rows - 1).getField("name")).isEqualTo("in place");
  }

  private PartitionedDataWriter writer(Table target, Staging staging) {
    return new PartitionedDataWriter(target, 0, 0, lanes, staging);
  }

  /** Writes users 0 to {@code rows - 1}; returns each one's id by file and position. */
  private Map<String, Map<Long, Integer>> writeUsers(PartitionedDataWriter writer, int rows)
      throws InterruptedException {
    Map<String, Map<Long, Integer>> announced = new HashMap<>();
    for (int id = 0; id < rows; id++) {
      PartitionedDataWriter.FilePosition at = writer.write(payload(user(id)));
      announced.computeIfAbsent(at.path(), path -> new HashMap<>()).put(at.position(), id);
    }
    return announced;
  }

  private static PartitionedDataWriter.FilePosition find(Map<String, Map<Long, Integer>> announced,
      int id) {
    for (Map.Entry<String, Map<Long, Integer>> file : announced.entrySet()) {
      for (Map.Entry<Long, Integer> row : file.getValue().entrySet()) {
        if (row.getValue() == id) {
          return new PartitionedDataWriter.FilePosition(file.getKey(), row.getKey());
        }
      }
    }
    throw new AssertionError("row " + id + " was not announced");
  }

  @Test
  void aReplacedRowTakesItsPlaceOnlyInTheFileOfItsPartition() throws Exception {
    List<DataFile> files;
    PartitionedDataWriter.FilePosition staged;
    try (PartitionedDataWriter writer = writer(table, Staging.UNTIL_COMPLETE)) {
      for (int id = 0; id < 6; id++) {
        writer.write(payload(user(id)));
      }
      staged = writer.write(payload(user(6))); // region of 6 % 3: the file of ids 0 and 3
      Record renamed = user(6);
      renamed.setField("name", "renamed");
      Record moved = user(6);
      moved.setField("region", "us");

      assertThat(writer.replace(staged.path(), staged.position(), payload(moved))).isNull();
      assertThat(writer.replace(staged.path(), staged.position(), payload(renamed))).isNotNull();
      files = writer.complete();
    }

    String path = staged.path();
    DataFile file = files.stream().filter(f -> f.location().equals(path)).findFirst()
        .orElseThrow();
    List<Record> written = readFile(file);
    assertThat(written).extracting(row -> row.getField("id")).containsExactly(0, 3, 6);
    assertThat(written.get((int) staged.position()).getField("name")).isEqualTo("renamed");
    assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(7);
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
    try (PartitionedDataWriter writer = writer(priced, Staging.PER_BATCH)) {
      paths.add(writer.write(RowCodec.encode(bad, schema)).path()); // fails only when encoded
      assertThatThrownBy(writer::complete).hasMessageContaining("decimal(9,2)");
    }
    assertThat(priced.io().newInputFile(paths.get(0)).exists()).isFalse();
  }

  @Test
  void aRowTheSchemaCannotTakeFailsOnTheCallersThreadAndWritesNothing() throws Exception {
    GenericRecord keyless = (GenericRecord) user(1);
    keyless.setField("id", null);
    try (PartitionedDataWriter writer = writer(table, Staging.PER_BATCH)) {
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
      try (PartitionedDataWriter writer = writer(table, Staging.PER_BATCH)) {
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

  /** What a key lookup prunes row groups by: a bloom filter on the key column, none elsewhere. */
  @Test
  void dataFilesCarryBloomFiltersOnTheKeyColumns() throws Exception {
    List<DataFile> files;
    try (PartitionedDataWriter writer = writer(table, Staging.PER_BATCH)) {
      for (int id = 0; id < 100; id++) {
        writer.write(payload(user(id)));
      }
      files = writer.complete();
    }
    assertThat(files).isNotEmpty();
    for (DataFile file : files) {
      try (org.apache.parquet.hadoop.ParquetFileReader reader = org.apache.parquet.hadoop.ParquetFileReader.open(
          org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()),
              new org.apache.hadoop.conf.Configuration()))) {
        for (var column : reader.getRowGroups().get(0).getColumns()) {
          boolean key = column.getPath().toDotString().equals("id");
          assertThat(column.getBloomFilterOffset() >= 0).as(column.getPath().toDotString()).isEqualTo(key);
        }
      }
    }
  }

  private Table usersAtLevel(String level) {
    Table users = TestingTables.createUsers(catalog, "db", "users_level_" + level);
    users.updateProperties().set(TableProperties.PARQUET_COMPRESSION_LEVEL, level).commit();
    return users;
  }

  /** The bytes of the files that the same 20 000 rows make in {@code target}. */
  private long bytesWritten(Table target) throws Exception {
    try (PartitionedDataWriter writer = writer(target, Staging.PER_BATCH)) {
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
