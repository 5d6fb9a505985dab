package io.verglas.materializer.lineage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.data.RowIdParquetWriter;
import io.verglas.materializer.keyindex.KeyEntry;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingCompactor;
import io.verglas.materializer.testing.TestingTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommittedRowIdsTest {
  @TempDir Path dir;
  Table table;

  @BeforeEach
  void create() {
    table = TestingTables.create(LocalTables.catalog(dir), TableIdentifier.of("db", "users"),
        TestingTables.USERS, PartitionSpec.unpartitioned());
  }

  @Test
  void aCommittedFileGivesItsFirstRowIdPlusThePositionOrTheIdItHolds() throws Exception {
    table.newAppend().appendFile(write(null, null, null)).commit(); // ids 0..2
    DataFile inherited = write(null, null, null);
    DataFile explicit = write(1L, null, 0L);
    table.newAppend().appendFile(inherited).appendFile(explicit).commit();
    CommittedRowIds ids = new CommittedRowIds(Duration.ZERO, 1 << 10);

    // The second commit assigned 3..5 and 6..8, in the order the files were added.
    assertThat(ids.rowId(table, inherited.location(), 2, entry(0), NO_KEY)).isEqualTo(5);
    assertThat(ids.rowId(table, explicit.location(), 0, entry(0), NO_KEY)).isEqualTo(1);
    assertThat(ids.rowId(table, explicit.location(), 1, entry(0), NO_KEY)).isEqualTo(7);
    assertThat(ids.rowId(table, explicit.location(), 2, entry(0), NO_KEY)).isEqualTo(0);
    assertThat(ids.lostRows()).isZero();
  }

  @Test
  void anUncommittedFileGivesTheIdsItHoldsAndTheRestAfterItsCommit() throws Exception {
    DataFile pending = write(4L, null, null);
    CommittedRowIds ids = new CommittedRowIds(Duration.ofMillis(50), 1 << 10);

    assertThat(ids.rowId(table, pending.location(), 0, entry(0), NO_KEY)).isEqualTo(4);
    long start = System.nanoTime();
    assertThat(ids.rowId(table, pending.location(), 1, entry(0), NO_KEY))
        .isEqualTo(RowIdParquetWriter.INHERITED);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(50_000_000L);
    assertThat(ids.lostRows()).isEqualTo(1);
    // Given up on: no second wait while the table has no new snapshot.
    start = System.nanoTime();
    assertThat(ids.rowId(table, pending.location(), 2, entry(0), NO_KEY))
        .isEqualTo(RowIdParquetWriter.INHERITED);
    assertThat(System.nanoTime() - start).isLessThan(50_000_000L);

    table.newAppend().appendFile(pending).commit();
    assertThat(ids.rowId(table, pending.location(), 1, entry(0), NO_KEY)).isEqualTo(1);
    assertThat(ids.rowId(table, pending.location(), 2, entry(0), NO_KEY)).isEqualTo(2);
    assertThat(ids.lostRows()).isEqualTo(2);
  }

  @Test
  void snapshotsOlderThanTheRowAreNotRead() throws Exception {
    DataFile old = write(null, null, null);
    table.newAppend().appendFile(old).commit();
    long written = table.currentSnapshot().timestampMillis()
        + CommittedRowIds.CLOCK_SKEW_MILLIS + 60_000;
    CommittedRowIds ids = new CommittedRowIds(Duration.ZERO, 1 << 10);

    assertThat(ids.rowId(table, old.location(), 0, entry(written), NO_KEY))
        .isEqualTo(RowIdParquetWriter.INHERITED);
    assertThat(new CommittedRowIds(Duration.ZERO, 1 << 10)
        .rowId(table, old.location(), 0, entry(0), NO_KEY)).isEqualTo(0);
  }

  @Test
  void invalidBoundsAreRefused() {
    assertThatThrownBy(() -> new CommittedRowIds(Duration.ofMillis(-1), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
    assertThatThrownBy(() -> new CommittedRowIds(Duration.ZERO, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }

  @Test
  void aFileWhoseSnapshotExpiredAfterACompactionGivesTheIdOfItsKeysLiveRow() throws Exception {
    DataFile old = write(null, null, null);
    table.newAppend().appendFile(old).commit(); // ids 0..2
    long oldSnapshot = table.currentSnapshot().snapshotId();
    assertThat(new TestingCompactor(5).compact(table)).isTrue(); // ids carried over, reordered
    // A later commit of the materializer marks the row's WAL segment committed; expiry keeps
    // that snapshot, and drops the one that added the old file.
    table.newAppend().appendFile(write(10, null, null, null)).set("verglas.wal.s1", "3")
        .commit(); // ids 6..8 (the compaction's file took 3..5, though its rows hold 0..2)
    table.expireSnapshots().expireSnapshotId(oldSnapshot).commit();
    table.refresh();
    assertThat(table.snapshot(oldSnapshot)).isNull();
    CommittedRowIds ids = new CommittedRowIds(Duration.ofMinutes(5), 1 << 10);

    // Key 1 (position 1 of the old file) is covered by the WAL marks: it is looked up by key.
    KeyEntry covered = entry(0);
    covered.streamId = "s1";
    covered.sequence = 3;
    long start = System.nanoTime();
    assertThat(ids.rowId(table, old.location(), 1, covered, () -> key(1))).isEqualTo(1);
    assertThat(ids.rowId(table, old.location(), 2, covered, () -> key(12))).isEqualTo(8);
    assertThat(System.nanoTime() - start).as("no wait").isLessThan(60_000_000_000L);
    assertThat(ids.lostRows()).isZero();
    // A key no longer in the table: a fresh id, counted.
    assertThat(ids.rowId(table, old.location(), 0, covered, () -> key(99)))
        .isEqualTo(RowIdParquetWriter.INHERITED);
    assertThat(ids.lostRows()).isEqualTo(1);
  }

  private Record key(int id) {
    GenericRecord record = GenericRecord.create(table.schema());
    record.setField("id", id);
    return record;
  }

  private static KeyEntry entry(long writtenMillis) {
    KeyEntry entry = new KeyEntry();
    entry.hlc = writtenMillis << 16;
    return entry;
  }

  private static final java.util.function.Supplier<Record> NO_KEY = () -> {
    throw new AssertionError("no look-up by key expected");
  };

  /** Three rows, with the given explicit row ids (null: inherited). */
  private DataFile write(Long first, Long second, Long third) {
    return write(0, first, second, third);
  }

  /** Rows of keys {@code firstKey}.. with the given explicit row ids (null: inherited). */
  private DataFile write(int firstKey, Long first, Long second, Long third) {
    Schema schema = MetadataColumns.schemaWithRowLineage(table.schema());
    List<Record> rows = new ArrayList<>();
    Long[] ids = {first, second, third};
    for (int i = 0; i < ids.length; i++) {
      GenericRecord record = GenericRecord.create(schema);
      record.setField("id", firstKey + i);
      record.setField("name", "n" + i);
      record.setField("value", (long) i);
      record.setField(MetadataColumns.ROW_ID.name(), ids[i]);
      rows.add(record);
    }
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1)
        .format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).dataSchema(schema).build()
        .newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }
}
