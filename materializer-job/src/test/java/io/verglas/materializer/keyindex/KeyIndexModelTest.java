package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.data.BackgroundWrites;
import io.verglas.materializer.source.WalRow;
import io.verglas.wal.WalPosition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The key index against a map of the last entry written per key, through flushes, checkpoints
 * and restores from the last checkpoint (read into the cache or not), with caches from none to
 * larger than the key space and write-backs on a thread of their own or not: every read answers
 * the model's entry, and every checkpoint stores exactly the model's entries in pages whose
 * metas count them.
 */
class KeyIndexModelTest {
  private static final List<String> TABLES = List.of(KeyIndexTest.TABLE,
      KeyIndexTest.OTHER_TABLE);
  private static final int KEYS = 700;
  private static final List<Integer> KEY_GROUPS =
      IntStream.range(0, KeyIndexTest.MAX_PARALLELISM).boxed().toList();

  @Property(tries = 60)
  void readsAnswerTheLastWriteAcrossCheckpointsAndRestores(
      @ForAll("capacities") int capacity, @ForAll boolean onItsThread,
      @ForAll("operations") List<Operation> operations) throws Exception {
    Run run = new Run(capacity, onItsThread);
    try {
      for (Operation operation : operations) {
        operation.apply(run);
      }
      run.checkpoint();
    } finally {
      run.close();
    }
    Statistics.label("evicted").collect(run.index.cachedEntries() < run.model.size()
        && capacity > 0);
    Statistics.label("pages per key group").collect(run.maxPages > 1 ? "several" : "one");
  }

  @Provide
  Arbitrary<Integer> capacities() {
    return Arbitraries.of(0, 1, 2, 3, 8, 40, 300, 2_000);
  }

  @Provide
  Arbitrary<List<Operation>> operations() {
    Arbitrary<Operation> writes = Combinators.combine(Arbitraries.integers().between(0, 1),
            Arbitraries.integers().between(0, KEYS - 1), Arbitraries.integers().between(1, 300))
        .as((table, first, count) -> run -> run.write(table, first, count));
    Arbitrary<Operation> others = Arbitraries.of(
        run -> run.index.endBatch(),
        Run::checkpoint,
        run -> run.restore(true),
        run -> run.restore(false));
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(3, writes), net.jqwik.api.Tuple.of(2, others))
        .list().ofMinSize(1).ofMaxSize(25);
  }

  interface Operation {
    void apply(Run run) throws Exception;
  }

  /** The index under test, its store, the model, and the last checkpoint of both. */
  static final class Run {
    private final int capacity;
    private final BackgroundWrites writes;
    TestingPageStore store = new TestingPageStore();
    TestingPageStore checkpointed = new TestingPageStore();
    Map<String, Long> model = new HashMap<>();
    Map<String, Long> checkpointedModel = new HashMap<>();
    KeyIndex index;
    long hlc;
    int maxPages;

    Run(int capacity, boolean onItsThread) {
      this.capacity = capacity;
      this.writes = onItsThread ? new BackgroundWrites("test-index-writes") : null;
      this.index = new KeyIndex(store, KeyIndexTest.MAX_PARALLELISM, capacity, true, writes);
    }

    void write(int table, int first, int count) throws Exception {
      for (int key = first; key < Math.min(KEYS, first + count); key++) {
        WalRow row = KeyIndexTest.row(TABLES.get(table), key);
        KeyIndex.Slot slot = index.read(row);
        Long expected = model.get(row.routingKey);
        if (expected == null) {
          assertThat(slot.entry()).as("%s", row.routingKey).isNull();
        } else {
          assertThat(slot.entry()).as("%s", row.routingKey).isNotNull();
          assertThat(slot.entry().hlc).as("%s", row.routingKey).isEqualTo(expected);
        }
        hlc++;
        slot.update(KeyEntry.live(new WalPosition(hlc, "s", hlc, 0, 0), "f-" + (hlc / 50),
            hlc));
        model.put(row.routingKey, hlc);
      }
      index.endBatch();
    }

    void checkpoint() throws Exception {
      index.writeBack();
      index.awaitWrites();
      IndexPages pages = new IndexPages(store);
      assertThat(pages.entries(KEY_GROUPS)).isEqualTo(model.size());
      for (int keyGroup : KEY_GROUPS) {
        maxPages = Math.max(maxPages, pages.meta(keyGroup).pages());
      }
      for (Map.Entry<String, Long> expected : model.entrySet()) {
        String routingKey = expected.getKey();
        KeyEntry stored = pages.lookup(WalRow.tableUuidOf(routingKey), WalRow.keyOf(routingKey),
            org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignToKeyGroup(routingKey,
                KeyIndexTest.MAX_PARALLELISM));
        assertThat(stored).as("%s", routingKey).isNotNull();
        assertThat(stored.hlc).as("%s", routingKey).isEqualTo(expected.getValue());
      }
      checkpointed = store.copy();
      checkpointedModel = new HashMap<>(model);
    }

    /** Goes back to the last checkpoint, as a restarted job does. */
    void restore(boolean readIn) throws Exception {
      index.awaitWrites();
      store = checkpointed.copy();
      model = new HashMap<>(checkpointedModel);
      index = new KeyIndex(store, KeyIndexTest.MAX_PARALLELISM, capacity, false, writes);
      if (readIn) {
        assertThat(index.restore(KEY_GROUPS)).isEqualTo(model.size());
        assertThat(index.complete()).isEqualTo(capacity > 0 && model.size() <= capacity);
      }
    }

    void close() {
      if (writes != null) {
        writes.close();
      }
    }
  }
}
