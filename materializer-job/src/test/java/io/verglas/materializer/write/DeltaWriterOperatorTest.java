package io.verglas.materializer.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.data.PartitionedDataWriter;
import io.verglas.materializer.delta.DeletedRows;
import io.verglas.materializer.delta.KeyRows;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.delta.TableDeltaTypeInfo;
import io.verglas.materializer.keyindex.IndexPages;
import io.verglas.materializer.keyindex.KeyEntry;
import io.verglas.materializer.keyindex.KeyEntrySerializer;
import io.verglas.materializer.keyindex.KeyedIndexPageStore;
import io.verglas.materializer.source.WalRow;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.row.RowCodec;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.table.PrimaryKeys;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalPosition;
import java.io.Closeable;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The keyed writer on Flink's operator harness, writing real files to a local warehouse. */
class DeltaWriterOperatorTest {
  @TempDir Path dir;
  Catalog catalog;
  Table table;

  @BeforeEach
  void setUp() {
    catalog = LocalTables.catalog(dir);
    table = unpartitioned("users", TestingTables.USERS);
  }

  @AfterEach
  void tearDown() throws Exception {
    ((Closeable) catalog).close();
  }

  @Test
  void rowsReplacedWithinAnIntervalNeverReachAFile() throws Exception {
    try (var harness = harness(1L << 20)) {
      harness.open();
      harness.processElement(upsert(1, "a", 10, 0), 0);
      harness.processElement(upsert(1, "a2", 20, 1), 0);
      harness.processElement(upsert(1, "stale", 5, 2), 0); // older clock: loses
      harness.processElement(upsert(2, "b", 30, 3), 0);
      harness.processElement(delete(2, 40, 4), 0);
      harness.prepareSnapshotPreBarrier(1);

      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.checkpointId()).isEqualTo(1);
      assertThat(delta.dataFiles()).hasSize(1);
      assertThat(delta.dataFiles().get(0)).contains("\"record-count\":1");
      assertThat(delta.deletes()).isEmpty();
      assertThat(delta.segments()).hasSize(1);
      assertThat(delta.segments().values().iterator().next().rowsThrough()).isEqualTo(5);
    }
  }

  @Test
  void anEarlyFlushIsFollowedByADeleteOfTheReplacedRow() throws Exception {
    try (var harness = harness(1)) { // every row exceeds the bound: flush after each
      harness.open();
      harness.processElement(upsert(1, "a", 10, 0), 0);
      harness.processElement(upsert(1, "a2", 20, 1), 0);
      harness.processElement(upsert(1, "stale", 5, 2), 0);
      harness.prepareSnapshotPreBarrier(1);

      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.dataFiles()).hasSize(2);
      assertThat(delta.deletes()).hasSize(1);
      String replaced = delta.deletes().keySet().iterator().next();
      assertThat(delta.dataFiles()).anySatisfy(json -> assertThat(json).contains(replaced));
      assertThat(delta.deletes().get(replaced)).containsExactly(0);
    }
  }

  @Test
  void theFlushesOfAnIntervalShareItsDataFile() throws Exception {
    try (var harness = harness(1_600)) { // each row is flushed on its own; files stay open
      harness.open();
      harness.processElement(upsert(1, "a", 10, 0), 0);
      harness.processElement(upsert(2, "b", 20, 1), 0);
      harness.processElement(upsert(1, "a2", 30, 2), 0);
      harness.prepareSnapshotPreBarrier(1);

      // The second version of key 1 takes the place its first one was staged at.
      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.dataFiles()).singleElement()
          .satisfies(json -> assertThat(json).contains("\"record-count\":2"));
      assertThat(delta.deletes()).isEmpty();
      assertThat(delta.segments().values().iterator().next().rowsThrough()).isEqualTo(3);
      Map<Object, String> names = namesById(delta);
      assertThat(names).containsExactly(Map.entry(1, "a2"), Map.entry(2, "b"));

      // The index names the file relative to the table location.
      KeyEntry stored = storedEntry(harness, upsert(1, "a2", 30, 2));
      assertThat(stored.dataFile).startsWith("data/");
      assertThat(delta.dataFiles().get(0)).contains("/users/" + stored.dataFile);
      assertThat(stored.filePosition).isEqualTo(0);
      assertThat(stored.hlc).isEqualTo(30);
    }
  }

  @Test
  void aKeyDeletedByALaterFlushOfTheIntervalGetsADeleteOfItsStagedRow() throws Exception {
    try (var harness = harness(1_600)) {
      harness.open();
      harness.processElement(upsert(1, "a", 10, 0), 0);
      harness.processElement(upsert(2, "b", 20, 1), 0);
      harness.processElement(delete(1, 30, 2), 0);
      harness.processElement(upsert(1, "again", 40, 3), 0);
      harness.prepareSnapshotPreBarrier(1);

      TableDelta delta = single(harness.extractOutputValues());
      String file = delta.deletes().keySet().iterator().next();
      assertThat(delta.deletes()).containsOnlyKeys(file);
      assertThat(delta.deletes().get(file)).containsExactly(0);
      assertThat(delta.dataFiles()).singleElement()
          .satisfies(json -> assertThat(json).contains(file).contains("\"record-count\":3"));
      assertThat(storedEntry(harness, upsert(1, "again", 40, 3)).filePosition).isEqualTo(2);
    }
  }

  @Test
  void aKeyMovingToAnotherPartitionWithinTheIntervalGetsADeleteOfItsStagedRow() throws Exception {
    table = TestingTables.createUsers(catalog, "db", "regional"); // partitioned by region
    try (var harness = harness(1_600)) {
      harness.open();
      harness.processElement(regional(1, "eu", 10, 0), 0);
      harness.processElement(regional(1, "us", 20, 1), 0);
      harness.processElement(regional(1, "us", 30, 2), 0); // replaces the staged "us" row
      harness.prepareSnapshotPreBarrier(1);

      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.dataFiles()).hasSize(2)
          .allSatisfy(json -> assertThat(json).contains("\"record-count\":1"));
      String file = delta.deletes().keySet().iterator().next();
      assertThat(delta.deletes()).containsOnlyKeys(file);
      assertThat(file).contains("region=eu");
      assertThat(delta.deletes().get(file)).containsExactly(0);
      KeyEntry stored = storedEntry(harness, regional(1, "us", 30, 2));
      assertThat(stored.dataFile).contains("region=us");
      assertThat(stored.hlc).isEqualTo(30);
    }
  }

  @Test
  void aTableWhoseKeysChangeWithinACheckpointIsStagedUntilTheBarrier() throws Exception {
    int keys = PartitionedDataWriter.BATCH + 476;
    // Flushes of ~300 rows; files stay open (their Parquet writers counted at nothing).
    try (var harness = harness(config(1_600_000).writerOpenFileBytes(0).build(), null)) {
      harness.open();
      int row = 0;
      for (int pass = 0; pass < 4; pass++) {
        for (int id = 0; id < keys; id++, row++) {
          WalRow version = upsert(id, "v" + pass, 10 + row, row);
          version.segmentRowCount = 4 * keys; // one segment holds them all
          harness.processElement(version, 0);
        }
        if (pass % 2 == 1) {
          harness.prepareSnapshotPreBarrier(pass / 2 + 1);
        }
      }

      List<TableDelta> deltas = harness.extractOutputValues();
      assertThat(deltas).hasSize(2);
      // The table's first interval is staged per batch: by the time the second versions
      // arrive, the batches of the first ones were encoded, so both reach the file and the
      // first ones are deleted.
      TableDelta first = deltas.get(0);
      assertThat(first.dataFiles()).singleElement()
          .satisfies(json -> assertThat(json).contains("\"record-count\":" + 2 * keys));
      String firstFile = first.deletes().keySet().iterator().next();
      assertThat(first.deletes()).containsOnlyKeys(firstFile);
      assertThat(first.deletes().get(firstFile)).hasSize(keys);

      // Half its rows were replaced within that interval: the next one is staged to the end,
      // and only the last version of each key reaches a file.
      TableDelta second = deltas.get(1);
      assertThat(second.dataFiles()).singleElement()
          .satisfies(json -> assertThat(json).contains("\"record-count\":" + keys));
      assertThat(second.deletes()).containsOnlyKeys(firstFile);
      assertThat(second.deletes().get(firstFile)).hasSize(keys);
      Map<Object, String> names = namesById(second);
      assertThat(names).hasSize(keys);
      assertThat(names.values()).containsOnly("v3");
    }
  }

  @Test
  void aSchemaChangeEndsTheOpenInterval() throws Exception {
    try (var harness = harness(1_600)) {
      harness.open();
      harness.processElement(upsert(1, "a", 10, 0), 0);
      ((DeltaWriterOperator) harness.getOperator()).awaitFlushes();
      table.updateSchema().addColumn("note", org.apache.iceberg.types.Types.StringType.get())
          .commit();
      // Encoded with the new schema, as the source reads a segment after the change.
      WalRow withNote = upsert(table, 2, "b", 20, 1);
      Record record = LocalTables.user(table, 2, "b", 1);
      record.setField("note", "new column");
      withNote.payload = RowCodec.encode(record, table.schema());
      withNote.schemaId = table.schema().schemaId();
      harness.processElement(withNote, 0);
      harness.prepareSnapshotPreBarrier(1);

      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.dataFiles()).hasSize(2)
          .allSatisfy(json -> assertThat(json).contains("\"record-count\":1"));
    }
  }

  @Test
  void aRowReadBeforeItsColumnWasPromotedIsWrittenWithTheNewType() throws Exception {
    Schema scores = PrimaryKeys.withPrimaryKey(new Schema(
        org.apache.iceberg.types.Types.NestedField.required(1, "id",
            org.apache.iceberg.types.Types.IntegerType.get()),
        org.apache.iceberg.types.Types.NestedField.optional(2, "score",
            org.apache.iceberg.types.Types.IntegerType.get())), List.of("id"));
    Table promoted = unpartitioned("scores", scores);
    Record record = org.apache.iceberg.data.GenericRecord.create(promoted.schema());
    record.setField("id", 1);
    record.setField("score", 7);
    WalRow row = base(promoted, 10, 0); // read while score was an int
    row.payload = RowCodec.encode(record, promoted.schema());
    row.schemaId = promoted.schema().schemaId();
    row.key = RowCodec.encodeKey(record, promoted.schema(), List.of(1));
    row.routingKey = WalRow.keyedRoutingKey(row.tableUuid, row.key);
    promoted.updateSchema()
        .updateColumn("score", org.apache.iceberg.types.Types.LongType.get()).commit();

    try (var harness = harness(1L << 20)) {
      harness.open();
      harness.processElement(row, 0);
      harness.prepareSnapshotPreBarrier(1);

      TableDelta delta = single(harness.extractOutputValues());
      promoted.refresh();
      List<Record> written = read(promoted, delta);
      assertThat(written).singleElement().satisfies(read -> {
        assertThat(read.getField("id")).isEqualTo(1);
        assertThat(read.getField("score")).isEqualTo(7L);
      });
    }
  }

  @Test
  void arrivingRowsLeaveTheKeyContextToTheFlush() throws Exception {
    // An early flush on the flush thread holds the current key while rows keep arriving: the
    // harness sets each record's key context, as a runtime that did would.
    try (var harness = harness(1L << 20)) {
      harness.open();
      harness.getOperator().setCurrentKey("held-by-the-flush");
      harness.processElement(upsert(1, "a", 10, 0), 0);
      assertThat(harness.getOperator().getCurrentKey()).isEqualTo("held-by-the-flush");
    }
  }

  @Test
  void aFailedEarlyFlushFailsTheCheckpoint() throws Exception {
    try (var harness = harness(1)) { // every row is flushed early, on the flush thread
      harness.open();
      WalRow corrupt = upsert(1, "a", 10, 0);
      corrupt.payload = new byte[] {1, 2, 3};
      harness.processElement(corrupt, 0);
      assertThatThrownBy(() -> harness.prepareSnapshotPreBarrier(1))
          .hasMessageContaining("Writer 0 failed to flush")
          .hasMessageContaining("Cannot write row of table");
      assertThat(harness.extractOutputValues()).isEmpty();
    }
  }

  /**
   * A restored index answers for the keys written before the restore, whether it fits the cache
   * (read into it at open) or not (left in RocksDB, read on a miss).
   */
  @Test
  void theRestoredKeyIndexTurnsUpdatesIntoDeletes() throws Exception {
    for (int cacheEntries : new int[] {1, MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_DEFAULT}) {
      restoredIndexTurnsUpdatesIntoDeletes(cacheEntries);
    }
  }

  private void restoredIndexTurnsUpdatesIntoDeletes(int cacheEntries) throws Exception {
    OperatorSubtaskState snapshot;
    String firstFile;
    try (var harness = harness(1L << 20, new EmbeddedRocksDBStateBackend(), cacheEntries)) {
      harness.open();
      harness.processElement(upsert(1, "a", 10, 0), 0);
      harness.processElement(upsert(2, "b", 10, 1), 0);
      harness.prepareSnapshotPreBarrier(1);
      snapshot = harness.snapshot(1, 0);
      TableDelta delta = single(harness.extractOutputValues());
      firstFile = path(delta.dataFiles().get(0));
    }
    try (var harness = harness(1L << 20, new EmbeddedRocksDBStateBackend(), cacheEntries)) {
      harness.initializeState(snapshot);
      harness.open();
      harness.processElement(upsert(2, "b2", 20, 2), 0);
      harness.processElement(delete(1, 20, 3), 0);
      harness.processElement(upsert(1, "older", 5, 4), 0); // older than the delete: loses
      harness.processElement(upsert(3, "new", 20, 5), 0); // never written before
      harness.prepareSnapshotPreBarrier(2);
      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.deletes()).as("cache of %d", cacheEntries).containsOnlyKeys(firstFile);
      assertThat(delta.deletes().get(firstFile)).hasSize(2);
      // Each delete carries its row's key, for re-resolution after a compaction.
      DeletedRows rows = delta.deletedRows().get(firstFile);
      assertThat(rows.hasAllKeys()).isTrue();
      assertThat(List.of(rows.key(0), rows.key(1)))
          .extracting(key -> KeyRows.decode(key, table.schema()).getField("id"))
          .containsExactlyInAnyOrder(1, 2);
      assertThat(delta.dataFiles()).singleElement()
          .satisfies(json -> assertThat(json).contains("\"record-count\":2"));
    }
  }

  @Test
  void everyUpdateDeletesThePreviousVersionWhateverTheIndexCacheHolds() throws Exception {
    // No cache, a cache smaller than the keys, and one holding them all (updated in place).
    for (int cacheEntries : new int[] {0, 1, 100}) {
      try (var harness = harness(1L << 20, new EmbeddedRocksDBStateBackend(), cacheEntries)) {
        harness.open();
        String previousFile = null;
        for (int version = 1; version <= 3; version++) {
          for (int id = 1; id <= 3; id++) {
            harness.processElement(upsert(id, "v" + version, 10L * version, id - 1), 0);
          }
          harness.prepareSnapshotPreBarrier(version);
          TableDelta delta = single(harness.extractOutputValues());
          harness.getOutput().clear();
          if (previousFile == null) {
            assertThat(delta.deletes()).isEmpty();
          } else {
            assertThat(delta.deletes()).as("cache of %d, version %d", cacheEntries, version)
                .containsOnlyKeys(previousFile);
            assertThat(delta.deletes().get(previousFile)).containsExactlyInAnyOrder(0L, 1L, 2L);
          }
          previousFile = path(delta.dataFiles().get(0));
        }
      }
    }
  }

  @Test
  void tablesWithTheSameKeysKeepTheirOwnIndexEntries() throws Exception {
    Table other = unpartitioned("accounts", TestingTables.USERS);
    try (var harness = harness(1L << 20)) {
      harness.open();
      harness.processElement(upsert(table, 1, "a", 10, 0), 0);
      harness.processElement(upsert(other, 1, "x", 10, 1), 0);
      harness.prepareSnapshotPreBarrier(1);
      Map<String, String> firstFiles = new HashMap<>();
      for (TableDelta delta : harness.extractOutputValues()) {
        firstFiles.put(delta.tableUuid(), path(delta.dataFiles().get(0)));
      }
      harness.getOutput().clear();
      harness.processElement(upsert(other, 1, "x2", 20, 2), 0);
      harness.processElement(upsert(table, 1, "a2", 20, 3), 0);
      harness.prepareSnapshotPreBarrier(2);

      List<TableDelta> deltas = harness.extractOutputValues();
      assertThat(deltas).extracting(TableDelta::tableUuid)
          .containsExactlyInAnyOrder(table.uuid().toString(), other.uuid().toString());
      for (TableDelta delta : deltas) {
        String replaced = firstFiles.get(delta.tableUuid());
        assertThat(delta.deletes()).as(delta.tableName()).containsOnlyKeys(replaced);
        assertThat(delta.deletes().get(replaced)).containsExactly(0L);
      }
    }
  }

  @Test
  void aKeyIndexWrittenByThePojoSerializerIsMigratedOnRestore() throws Exception {
    WalRow replacing = upsert(1, "a2", 20, 0);
    String oldFile = "file:/warehouse/db/users/data/old.parquet";
    OperatorSubtaskState pojoIndex;
    try (var old = new KeyedOneInputStreamOperatorTestHarness<String, Tuple2<String, KeyEntry>,
        Void>(new KeyedProcessOperator<>(new PerKeyIndexWriter(true)), entry -> entry.f0,
        Types.STRING)) {
      old.setStateBackend(new EmbeddedRocksDBStateBackend());
      old.open();
      old.processElement(Tuple2.of(replacing.routingKey,
          KeyEntry.live(new WalPosition(10, "s1", 0, 0, 0), oldFile, 7)), 0);
      pojoIndex = old.snapshot(1, 0);
    }
    try (var harness = harness(1L << 20, new EmbeddedRocksDBStateBackend())) {
      harness.initializeState(pojoIndex);
      harness.open();
      harness.processElement(replacing, 0);
      harness.prepareSnapshotPreBarrier(2);
      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.deletes()).containsOnlyKeys(oldFile);
      assertThat(delta.deletes().get(oldFile)).containsExactly(7L);
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aPerKeyIndexIsMovedIntoPagesOnRestore(boolean rocksDb) throws Exception {
    String oldFile = "file:/warehouse/db/users/data/old.parquet";
    List<WalRow> replacing = new ArrayList<>();
    OperatorSubtaskState perKeyIndex;
    try (var old = new KeyedOneInputStreamOperatorTestHarness<String, Tuple2<String, KeyEntry>,
        Void>(new KeyedProcessOperator<>(new PerKeyIndexWriter(false)), entry -> entry.f0,
        Types.STRING)) {
      if (rocksDb) {
        old.setStateBackend(new EmbeddedRocksDBStateBackend());
      }
      old.open();
      for (int id = 1; id <= 50; id++) {
        WalRow row = upsert(id, "v2", 20, id);
        row.segmentRowCount = 64;
        replacing.add(row);
        old.processElement(Tuple2.of(row.routingKey,
            KeyEntry.live(new WalPosition(10, "s1", 0, 0, id), oldFile, id)), 0);
      }
      perKeyIndex = old.snapshot(1, 0);
    }
    try (var harness = harness(1L << 20, rocksDb ? new EmbeddedRocksDBStateBackend() : null)) {
      harness.initializeState(perKeyIndex);
      harness.open();
      DeltaWriterOperator writer = (DeltaWriterOperator) harness.getOperator();
      try (var left = writer.getKeyedStateBackend().getKeys(
          DeltaWriterOperator.LEGACY_KEY_INDEX, VoidNamespace.INSTANCE)) {
        assertThat(left).as("per-key entries left").isEmpty();
      }
      assertThat(storedEntry(harness, replacing.get(6)).filePosition).isEqualTo(7);
      for (WalRow row : replacing) {
        harness.processElement(row, 0);
      }
      harness.prepareSnapshotPreBarrier(2);
      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.deletes()).containsOnlyKeys(oldFile);
      assertThat(delta.deletes().get(oldFile)).hasSize(50);
    }
  }

  /**
   * Writes key index entries as releases before the pages did: one per routing key, with
   * {@link KeyEntrySerializer}, or as a POJO (releases before that serializer).
   */
  private static final class PerKeyIndexWriter
      extends KeyedProcessFunction<String, Tuple2<String, KeyEntry>, Void> {
    private final boolean pojo;
    private transient ValueState<KeyEntry> index;

    PerKeyIndexWriter(boolean pojo) {
      this.pojo = pojo;
    }

    @Override
    public void open(OpenContext context) {
      index = getRuntimeContext().getState(pojo
          ? new ValueStateDescriptor<>(DeltaWriterOperator.LEGACY_KEY_INDEX,
              TypeInformation.of(KeyEntry.class))
          : DeltaWriterOperator.legacyKeyIndexDescriptor());
    }

    @Override
    public void processElement(Tuple2<String, KeyEntry> entry, Context context,
        Collector<Void> out) throws Exception {
      index.update(entry.f1);
    }
  }

  @Test
  void appendOnlyRowsAreAllWritten() throws Exception {
    Table events = unpartitioned("events", TestingTables.EVENTS);
    try (var harness = harness(1L << 20)) {
      harness.open();
      for (int i = 0; i < 3; i++) {
        WalRow row = base(events, 10, i);
        Record record = org.apache.iceberg.data.GenericRecord.create(events.schema());
        record.setField("ts", 7L);
        record.setField("msg", "same");
        row.payload = RowCodec.encode(record, events.schema());
        row.routingKey = row.tableUuid + "/s1/0";
        harness.processElement(row, 0);
      }
      harness.prepareSnapshotPreBarrier(1);
      TableDelta delta = single(harness.extractOutputValues());
      assertThat(delta.dataFiles()).singleElement()
          .satisfies(json -> assertThat(json).contains("\"record-count\":3"));
    }
  }

  @Test
  void aWriterKeepsAtMostTheConfiguredTablesOpenAndEveryRowLandsOnce() throws Exception {
    int maxOpen = 8;
    List<Table> tables = new ArrayList<>();
    for (int i = 0; i < 5 * maxOpen; i++) {
      tables.add(unpartitioned("t" + i, TestingTables.USERS));
    }
    // Flushes of a few rows: the interval touches every table, twice, key 2 changing between.
    MaterializerConfig config = config(8_000).writerMaxOpenTables(maxOpen).build();
    try (var harness = harness(config, null)) {
      harness.open();
      int rowIndex = 0;
      for (int round = 0; round < 2; round++) { // keys 1 and 2, then 2 and 3
        for (Table each : tables) {
          for (WalRow row : List.of(upsert(each, 1 + 2 * round, "v" + round, 10 + round,
              rowIndex++), upsert(each, 2, "v" + round, 10 + round, rowIndex++))) {
            row.segmentRowCount = 4 * tables.size(); // one segment holds them all
            harness.processElement(row, 0);
          }
        }
      }
      harness.prepareSnapshotPreBarrier(1);

      DeltaWriterOperator writer = (DeltaWriterOperator) harness.getOperator();
      assertThat(writer.peakOpenIntervals()).isEqualTo(maxOpen);
      Map<String, TableDelta> byTable = new HashMap<>();
      harness.extractOutputValues().forEach(delta -> byTable.put(delta.tableUuid(), delta));
      for (Table each : tables) {
        assertThat(liveNamesById(each, byTable.get(each.uuid().toString())))
            .as("the rows of %s", each.name())
            .containsExactly(Map.entry(1, "v0"), Map.entry(2, "v1"), Map.entry(3, "v1"));
      }
    }
  }

  /** The rows of the delta's files that its deletes leave, by id; each id once at most. */
  private static Map<Object, String> liveNamesById(Table target, TableDelta delta)
      throws Exception {
    Map<Object, String> names = new TreeMap<>();
    for (String json : delta.dataFiles()) {
      List<Record> rows = readFile(target, json);
      List<Long> deleted = java.util.Arrays.stream(
          delta.deletes().getOrDefault(path(json), new long[0])).boxed().toList();
      for (int position = 0; position < rows.size(); position++) {
        if (!deleted.contains((long) position)) {
          Record record = rows.get(position);
          assertThat(names.put(record.getField("id"), (String) record.getField("name")))
              .as("a key's second live row").isNull();
        }
      }
    }
    return names;
  }

  private Table unpartitioned(String name, Schema schema) {
    return TestingTables.create(catalog, TableIdentifier.of("db", name), schema,
        PartitionSpec.unpartitioned());
  }

  private KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> harness(long bound)
      throws Exception {
    return harness(bound, null, MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_DEFAULT);
  }

  private KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> harness(long bound,
      StateBackend backend) throws Exception {
    return harness(bound, backend, MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_DEFAULT);
  }

  /** A harness on {@code backend} (null: the harness's default heap backend). */
  private KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> harness(long bound,
      StateBackend backend, int indexCacheEntries) throws Exception {
    return harness(config(bound).writerIndexCacheEntries(indexCacheEntries).build(), backend);
  }

  /** The writer's configuration with a byte bound of {@code bound}, to complete. */
  private MaterializerConfig.Builder config(long bound) {
    return MaterializerConfig.builder()
        .catalogProperties(LocalTables.catalogProperties(dir))
        .objectStore(new ObjectStoreEndpoint(URI.create("http://127.0.0.1:1"), "us-east-1", "a",
            "s", "unused"))
        .writerBufferBytes(bound)
        // Nothing commits here: the file of a key's previous version never gets its
        // first_row_id, so the writer gives the new version a fresh row id at once.
        .writerRowIdWait(java.time.Duration.ZERO);
  }

  private KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> harness(
      MaterializerConfig config, StateBackend backend) throws Exception {
    var harness = new KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta>(
        new DeltaWriterOperator(config), row -> row.routingKey, Types.STRING);
    if (backend != null) {
      harness.setStateBackend(backend);
    }
    harness.setup(TableDeltaTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl()));
    return harness;
  }

  private WalRow upsert(int id, String name, long hlc, int rowIndex) {
    return upsert(table, id, name, hlc, rowIndex);
  }

  private static WalRow upsert(Table table, int id, String name, long hlc, int rowIndex) {
    WalRow row = base(table, hlc, rowIndex);
    Record record = LocalTables.user(table, id, name, 1);
    row.payload = RowCodec.encode(record, table.schema());
    row.schemaId = table.schema().schemaId();
    row.key = RowCodec.encodeKey(record, table.schema(), PrimaryKeys.fieldIds(table.schema()));
    row.routingKey = WalRow.keyedRoutingKey(row.tableUuid, row.key);
    return row;
  }

  private WalRow delete(int id, long hlc, int rowIndex) {
    WalRow row = upsert(id, null, hlc, rowIndex);
    row.op = WalRow.DELETE;
    return row;
  }

  private static WalRow base(Table table, long hlc, int rowIndex) {
    WalRow row = new WalRow();
    row.tableUuid = table.uuid().toString();
    row.tableName = table.name().substring(table.name().indexOf('.') + 1);
    row.op = WalRow.UPSERT;
    row.hlc = hlc;
    row.streamId = "s1";
    row.sequence = 0;
    row.batch = rowIndex; // one batch per row, so row order and clock order can differ
    row.row = 0;
    row.ordinal = rowIndex;
    row.segmentRowCount = 8;
    row.segmentKey = WalLayout.defaults().segmentKey("s1", 0);
    return row;
  }

  /** A user row of {@link #table} in {@code region} (its partition when partitioned). */
  private WalRow regional(int id, String region, long hlc, int rowIndex) {
    WalRow row = upsert(id, region + "-user", hlc, rowIndex);
    Record record = LocalTables.user(table, id, region + "-user", 1);
    record.setField("region", region);
    row.payload = RowCodec.encode(record, table.schema());
    return row;
  }

  /** The key index entry the writer stores for {@code row}'s key (in its pages). */
  private static KeyEntry storedEntry(
      KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> harness, WalRow row)
      throws Exception {
    DeltaWriterOperator writer = (DeltaWriterOperator) harness.getOperator();
    int maxParallelism = writer.getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
    return new IndexPages(new KeyedIndexPageStore(writer.getKeyedStateBackend())).lookup(
        row.tableUuid, row.key, KeyGroupRangeAssignment.assignToKeyGroup(row.routingKey,
            maxParallelism));
  }

  /** The names of the rows the delta's data files hold, by id. */
  private Map<Object, String> namesById(TableDelta delta) throws Exception {
    Map<Object, String> names = new TreeMap<>();
    for (Record record : read(table, delta)) {
      assertThat(names.put(record.getField("id"), (String) record.getField("name")))
          .as("a key's second row in the files").isNull();
    }
    return names;
  }

  /** The rows of the delta's data files, read with the schema of {@code target}. */
  private static List<Record> read(Table target, TableDelta delta) throws Exception {
    List<Record> rows = new ArrayList<>();
    for (String json : delta.dataFiles()) {
      rows.addAll(readFile(target, json));
    }
    return rows;
  }

  /** The rows of one data file (as a delta holds it), in position order. */
  private static List<Record> readFile(Table target, String json) throws Exception {
    List<Record> rows = new ArrayList<>();
    DataFile file = (DataFile) ContentFileParser.fromJson(
        new ObjectMapper().readTree(json), target.specs());
    try (CloseableIterable<Record> records = Parquet.read(
            target.io().newInputFile(file.location()))
        .project(target.schema())
        .createReaderFunc(schema -> GenericParquetReaders.buildReader(target.schema(), schema))
        .build()) {
      records.forEach(record -> rows.add(record.copy()));
    }
    return rows;
  }

  private static TableDelta single(List<TableDelta> deltas) {
    assertThat(deltas).hasSize(1);
    return deltas.get(0);
  }

  private static String path(String json) {
    int start = json.indexOf("\"file-path\":\"") + "\"file-path\":\"".length();
    return json.substring(start, json.indexOf('"', start));
  }
}
