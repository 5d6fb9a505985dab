package io.verglas.materializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.commit.TableCommitter;
import io.verglas.materializer.commit.TableCommitter.Outcome;
import io.verglas.materializer.commit.TableCommitterHooks;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.delta.TableDeltaTypeInfo;
import io.verglas.materializer.source.WalRow;
import io.verglas.materializer.table.VerglasTables;
import io.verglas.materializer.testing.LocalTables;
import io.verglas.materializer.testing.TestingCompactor;
import io.verglas.materializer.testing.TestingRows;
import io.verglas.materializer.testing.TestingTables;
import io.verglas.materializer.testing.TestingWalStore;
import io.verglas.materializer.write.DeltaWriterOperator;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * Model-based property test of the writer and committer together (the operators themselves, on
 * Flink's harness, against a real local warehouse): random sequences of upserts and deletes over
 * a small key space (keys also move between partitions), cut into many checkpoints, with
 * failures, replays, lost notifications and compactions (Iceberg's core rewrite) in between.
 * After every commit the table must equal an in-memory model of last-writer-wins, with no key
 * twice. Runs on format version 2 (position-delete files) and 3 (DVs).
 *
 * <p>Row lineage (format version 3), read by Iceberg's reader with the metadata columns
 * projected: after every commit and compaction each live key's {@code _row_id} is the one its
 * row had since it was inserted (a new key, or a key written again after its delete reached the
 * writer, gets an id no other row had), and its {@code _last_updated_sequence_number} is the
 * sequence number of the commit of its last change. The one exception is modelled: the new
 * version of a key inserted in a checkpoint whose commit is still pending (its notification
 * was lost) cannot learn the id the commit will give, and after the configured wait gets a
 * fresh one. The change log lineage gives (the rows whose sequence number is above the snapshot
 * before a commit) is the model's keys that checkpoint changed. On format version 2 both
 * columns read as null.
 *
 * <p>A failure prints jqwik's seed and the shrunk step list; {@code @Property(seed = "...")}
 * replays it. jqwik's failure database lives under {@code target/}.
 */
class MaterializerModelTest {
  static final String[] REGIONS = {"eu", "us", null};

  /** One thing that happens to the pipeline. */
  sealed interface Step permits Put, Remove, Checkpoint, Compact {}

  /** An upsert of {@code key} into {@code region}. */
  record Put(int key, int region) implements Step {}

  record Remove(int key) implements Step {}

  /** A checkpoint, and what goes wrong around its commit. */
  record Checkpoint(Mode mode) implements Step {}

  /** A compaction between commits. */
  record Compact() implements Step {}

  enum Mode {
    /** Checkpoint completes, the committer commits. */
    COMMIT,
    /** ... and commits the same delta again (a restart after the commit): a no-op. */
    COMMIT_TWICE,
    /** The checkpoint fails: the writer restores the last one and the source replays. */
    FAIL_AND_REPLAY,
    /** Completes, but the notification is lost: committed with the next checkpoint. */
    LOST_NOTIFICATION,
    /** A compaction commits after the writer flushed and before the committer reads. */
    COMPACT_BEFORE_COMMIT,
    /** A compaction commits while the committer is committing (after it read the snapshot). */
    COMPACT_DURING_COMMIT
  }

  @Provide
  Arbitrary<Step> steps() {
    Arbitrary<Integer> keys = Arbitraries.integers().between(0, 7);
    Arbitrary<Step> put = Combinators.combine(keys, Arbitraries.integers().between(0, 2))
        .as(Put::new);
    return Arbitraries.frequencyOf(
        Tuple.of(10, put),
        Tuple.of(3, keys.map(Remove::new)),
        Tuple.of(4, Arbitraries.of(Mode.class).map(Checkpoint::new)),
        Tuple.of(1, Arbitraries.just(new Compact())));
  }

  @Property(tries = 16)
  void theTableEqualsTheModelAfterEveryCommit(
      @ForAll @Size(min = 20, max = 70) List<@From("steps") Step> steps,
      @ForAll @IntRange(min = 2, max = 3) int formatVersion,
      @ForAll boolean tinyWriterBuffer,
      @ForAll("indexCacheEntries") int indexCacheEntries) throws Exception {
    Path dir = Files.createTempDirectory("materializer-model");
    try (Simulation simulation =
        new Simulation(dir, formatVersion, tinyWriterBuffer, indexCacheEntries)) {
      for (Step step : steps) {
        simulation.apply(step);
      }
      simulation.apply(new Checkpoint(Mode.COMMIT));
      assertThat(simulation.tableRows()).isEqualTo(simulation.model);
      Statistics.label("row ids kept across updates").collect(bucket(simulation.keptIds()));
      Statistics.label("fresh ids after a pending commit").collect(bucket(simulation.lostIds));
      Statistics.label("rows re-resolved by key").collect(bucket(simulation.relocatedRows()));
      Statistics.label("compactions committed").collect(bucket(simulation.compactor.committed()));
      // Files emptied by our deletes are removed (both format versions): the path must be taken.
      Statistics.label("data files removed by the committer")
          .collect(bucket(simulation.removedByCommitter()));
      Statistics.label("data files removed by the committer").coverage(coverage ->
          coverage.checkQuery((List<?> values) -> !"0".equals(values.get(0)))
              .count((Integer tries) -> tries > 0));
    } finally {
      deleteRecursively(dir);
    }
  }

  /**
   * A key index cache that holds every key (new keys are then never looked up in the state, and
   * a restored index is read into the cache) or fewer than the keys (evictions; a restored index
   * stays in the state).
   */
  @Provide
  Arbitrary<Integer> indexCacheEntries() {
    return Arbitraries.of(3, MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_DEFAULT);
  }

  private static String bucket(long count) {
    return count == 0 ? "0" : count < 5 ? "1-4" : "5+";
  }

  /** The pipeline under test and its model. */
  static final class Simulation implements Closeable {
    final Catalog catalog;
    final Catalog committerCatalog;
    final Table table;
    final MaterializerConfig config;
    final TableCommitter committer;
    final TestingCompactor compactor = new TestingCompactor(7);
    final TestingRows rows;
    KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> harness;
    OperatorSubtaskState lastCheckpoint;
    final List<WalRow> sinceLastCheckpoint = new ArrayList<>();
    /** Last writer wins over every row fed so far. */
    final Map<Integer, String> model = new TreeMap<>();
    /** What the table must hold once the pending checkpoints are committed. */
    final NavigableMap<Long, Map<Integer, String>> modelAt = new TreeMap<>();
    final NavigableMap<Long, TableDelta> pending = new TreeMap<>();
    Map<Integer, String> committedModel = new TreeMap<>();
    long checkpointId;
    int version;
    final int formatVersion;
    final boolean tinyWriterBuffer;
    /** Row lineage model: each live key's lineage (a token for the row id it must keep). */
    final Map<Integer, Integer> token = new TreeMap<>();
    /** The tokens as the last checkpoint taken left them (what a buffered flush sees). */
    Map<Integer, Integer> tokenAtBarrier = new TreeMap<>();
    /** By token: the checkpoint its row was inserted in (its null id inherits that commit's). */
    final Map<Integer, Long> bornIn = new TreeMap<>();
    /** By key: the checkpoint of its last change. */
    final Map<Integer, Long> changedIn = new TreeMap<>();
    final NavigableMap<Long, Map<Integer, Integer>> tokenAt = new TreeMap<>();
    final NavigableMap<Long, Map<Integer, Long>> changedInAt = new TreeMap<>();
    /** By key: the sequence number its last committed change must read as. */
    final Map<Integer, Long> expectedSequence = new TreeMap<>();
    /** By token: the row id seen for it; and the other way. */
    final Map<Integer, Long> rowIdOf = new TreeMap<>();
    final Map<Long, Integer> tokenOfRowId = new TreeMap<>();
    final Map<Integer, Integer> updatesOf = new TreeMap<>();
    int tokens;
    long lostIds;

    Simulation(Path dir, int formatVersion, boolean tinyWriterBuffer, int indexCacheEntries)
        throws Exception {
      catalog = LocalTables.catalog(dir);
      table = TestingTables.createUsers(catalog, "db", "users", formatVersion);
      this.formatVersion = formatVersion;
      this.tinyWriterBuffer = tinyWriterBuffer;
      config = MaterializerConfig.builder()
          .catalogProperties(LocalTables.catalogProperties(dir))
          .objectStore(new ObjectStoreEndpoint(URI.create("http://127.0.0.1:1"), "us-east-1", "a",
              "s", "unused"))
          .writerBufferBytes(tinyWriterBuffer ? 1 : 1L << 20)
          .writerIndexCacheEntries(indexCacheEntries)
          .writerRowIdWait(java.time.Duration.ofMillis(20))
          .build();
      committerCatalog = LocalTables.catalog(dir);
      committer = new TableCommitter(new VerglasTables(committerCatalog),
          new TestingWalStore(WalLayout.defaults()), event -> {}, "job-model");
      rows = new TestingRows(table);
      harness = newHarness(null);
    }

    void apply(Step step) throws Exception {
      if (step instanceof Put put) {
        GenericRecord record = GenericRecord.create(table.schema());
        record.setField("id", put.key());
        record.setField("name", "k" + put.key() + "v" + (++version));
        record.setField("region", REGIONS[put.region()]);
        record.setField("value", (long) version);
        feed(rows.upsert(record));
        lineageOfPut(put.key());
        model.put(put.key(), describe(record));
      } else if (step instanceof Remove remove) {
        GenericRecord record = GenericRecord.create(table.schema());
        record.setField("id", remove.key());
        feed(rows.delete(record));
        model.remove(remove.key());
        token.remove(remove.key());
      } else if (step instanceof Compact) {
        compactor.compact(table);
        assertThat(tableRows()).as("after a compaction").isEqualTo(committedModel);
        checkLineage(committedTokens, "after a compaction");
      } else if (step instanceof Checkpoint checkpoint) {
        checkpoint(checkpoint.mode());
      }
    }

    /**
     * The lineage a put gives its key: the token of the key's live version as the writer sees
     * it (each row flushed alone with a tiny buffer; with a large one, the newest version per
     * key of the interval against the index as the last barrier left it), or a new one for a
     * new key, or when that version's row was inserted in a checkpoint still pending.
     */
    private void lineageOfPut(int key) {
      long open = checkpointId + 1;
      Integer previous = tinyWriterBuffer || token.containsKey(key) ? token.get(key)
          : tokenAtBarrier.get(key);
      if (previous != null && bornIn.get(previous) < open && pending.containsKey(
          bornIn.get(previous))) {
        previous = null;
        lostIds++;
      }
      if (previous == null) {
        previous = ++tokens;
        bornIn.put(previous, open);
      } else {
        updatesOf.merge(previous, 1, Integer::sum);
      }
      token.put(key, previous);
      changedIn.put(key, open);
    }

    /** Tokens updated at least once whose row id was seen (ids that had to be kept). */
    long keptIds() {
      return updatesOf.keySet().stream().filter(rowIdOf::containsKey).count();
    }

    Map<Integer, Integer> committedTokens = new TreeMap<>();

    /** Checks the table's row lineage against the model of the committed checkpoints. */
    private void checkLineage(Map<Integer, Integer> tokens, String when) {
      for (Record record : TestingTables.readWithLineage(table)) {
        int key = (Integer) record.getField("id");
        Long rowId = (Long) record.getField("_row_id");
        Long sequence = (Long) record.getField("_last_updated_sequence_number");
        if (formatVersion < 3) {
          assertThat(rowId).as("row id of key %s on format version 2 %s", key, when).isNull();
          continue;
        }
        assertThat(sequence).as("last updated sequence number of key %s %s", key, when)
            .isEqualTo(expectedSequence.get(key));
        Integer lineage = tokens.get(key);
        assertThat(rowId).as("row id of key %s %s", key, when).isNotNull();
        Long seen = rowIdOf.putIfAbsent(lineage, rowId);
        assertThat(seen == null ? rowId : seen).as("row id of key %s (lineage %s) %s", key,
            lineage, when).isEqualTo(rowId);
        Integer owner = tokenOfRowId.putIfAbsent(rowId, lineage);
        assertThat(owner == null ? lineage : owner).as("row id %s of key %s %s was another"
            + " row's", rowId, key, when).isEqualTo(lineage);
      }
    }

    /** The keys of the rows whose last update is after sequence number {@code sequence}. */
    private Set<Integer> changedSince(long sequence) {
      Set<Integer> keys = new TreeSet<>();
      for (Record record : TestingTables.readWithLineage(table)) {
        if ((Long) record.getField("_last_updated_sequence_number") > sequence) {
          keys.add((Integer) record.getField("id"));
        }
      }
      return keys;
    }

    private void feed(WalRow row) throws Exception {
      sinceLastCheckpoint.add(row);
      harness.processElement(row, 0);
    }

    private void checkpoint(Mode mode) throws Exception {
      if (mode == Mode.FAIL_AND_REPLAY) {
        // The attempt dies before the checkpoint completes: its buffered rows and early-flushed
        // files are lost, the writer restores the last completed checkpoint, the source replays.
        harness.close();
        harness = newHarness(lastCheckpoint);
        for (WalRow row : sinceLastCheckpoint) {
          harness.processElement(row, 0);
        }
      }
      long id = ++checkpointId;
      harness.prepareSnapshotPreBarrier(id);
      List<TableDelta> deltas = new ArrayList<>(harness.extractOutputValues());
      harness.getOutput().clear();
      lastCheckpoint = harness.snapshot(id, id);
      sinceLastCheckpoint.clear();
      if (!deltas.isEmpty()) {
        pending.put(id, TableDelta.merge(deltas));
        modelAt.put(id, new TreeMap<>(model));
        tokenAt.put(id, new TreeMap<>(token));
        changedInAt.put(id, new TreeMap<>(changedIn));
      }
      tokenAtBarrier = new TreeMap<>(token);
      if (mode == Mode.LOST_NOTIFICATION) {
        return;
      }
      if (mode == Mode.COMPACT_BEFORE_COMMIT) {
        compactor.compact(table);
      }
      if (mode == Mode.COMPACT_DURING_COMMIT) {
        int[] calls = {0};
        TableCommitterHooks.beforeCommit(committer, t -> {
          if (calls[0]++ == 0) {
            compactor.compact(t);
          }
        });
      }
      try {
        while (!pending.isEmpty()) {
          Map.Entry<Long, TableDelta> next = pending.pollFirstEntry();
          table.refresh();
          long before = table.currentSnapshot() == null ? 0
              : table.currentSnapshot().sequenceNumber();
          Outcome outcome = committer.commit(next.getValue()).outcome();
          assertThat(outcome).isIn(Outcome.COMMITTED, Outcome.NOTHING_TO_COMMIT);
          committedModel = modelAt.remove(next.getKey());
          assertThat(tableRows()).as("after committing checkpoint %s", next.getKey())
              .isEqualTo(committedModel);
          committedTokens = tokenAt.remove(next.getKey());
          Map<Integer, Long> changed = changedInAt.remove(next.getKey());
          if (outcome == Outcome.COMMITTED) {
            long sequence = table.currentSnapshot().sequenceNumber();
            changed.forEach((key, in) -> {
              if (in == next.getKey().longValue()) {
                expectedSequence.put(key, sequence);
              }
            });
          }
          checkLineage(committedTokens, "after committing checkpoint " + next.getKey());
          if (formatVersion >= 3) {
            // The change log lineage gives: rows changed since the snapshot before the commit.
            Set<Integer> changedNow = new TreeSet<>();
            committedModel.keySet().stream().filter(key -> changed.get(key) == next.getKey()
                .longValue()).forEach(changedNow::add);
            assertThat(changedSince(before)).as("rows changed by checkpoint %s", next.getKey())
                .isEqualTo(changedNow);
          }
          if (mode == Mode.COMMIT_TWICE) {
            assertThat(committer.commit(next.getValue()).outcome())
                .isIn(Outcome.ALREADY_COMMITTED, Outcome.NOTHING_TO_COMMIT);
            assertThat(tableRows()).isEqualTo(committedModel);
          }
        }
      } finally {
        TableCommitterHooks.beforeCommit(committer, t -> {});
      }
    }

    private KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta> newHarness(
        OperatorSubtaskState restore) throws Exception {
      var created = new KeyedOneInputStreamOperatorTestHarness<String, WalRow, TableDelta>(
          new DeltaWriterOperator(config), row -> row.routingKey, Types.STRING);
      created.setup(TableDeltaTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl()));
      if (restore != null) {
        created.initializeState(restore);
      }
      created.open();
      return created;
    }

    /** id → name/region/value; fails on a key that is there twice. */
    Map<Integer, String> tableRows() {
      Map<Integer, String> rows = new TreeMap<>();
      for (Record record : TestingTables.read(table)) {
        String previous = rows.put((Integer) record.getField("id"), describe(record));
        assertThat(previous).as("key %s is in the table twice", record.getField("id")).isNull();
      }
      return rows;
    }

    /** Data files our commits removed (every row deleted); compactions' removals not counted. */
    long removedByCommitter() {
      return TestingTables.summaryTotal(table,
          snapshot -> !DataOperations.REPLACE.equals(snapshot.operation()), "deleted-data-files");
    }

    long relocatedRows() {
      return TestingTables.summaryTotal(table, snapshot -> true,
          TableCommitter.SUMMARY_RELOCATED_ROWS);
    }

    static String describe(Record record) {
      return record.getField("name") + "/" + record.getField("region") + "/"
          + record.getField("value");
    }

    @Override
    public void close() throws IOException {
      try {
        harness.close();
      } catch (Exception e) {
        throw new IOException(e);
      } finally {
        ((Closeable) catalog).close();
        ((Closeable) committerCatalog).close();
      }
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
