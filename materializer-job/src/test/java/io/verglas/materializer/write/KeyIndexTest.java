package io.verglas.materializer.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.source.WalRow;
import io.verglas.wal.WalPosition;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.state.ValueState;
import org.junit.jupiter.api.Test;

/**
 * When the key index reads its state: never for a key the cache does not hold while the cache
 * holds every stored key, and always once it may not (a restored state not read in, an
 * eviction). The state here is a map under an explicit current key, as the backend's is.
 */
class KeyIndexTest {
  private static final String TABLE = "8d0e6f53-5b8a-4a43-9a43-2f4f0bb1d9a1";
  private static final String OTHER_TABLE = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";

  @Test
  void aNewIndexAnswersNewKeysWithoutReadingTheState() throws Exception {
    KeyedMap state = new KeyedMap();
    KeyIndex index = throughWrites(state, 10, true);
    for (int key = 0; key < 5; key++) {
      assertThat(write(index, state, key)).isNull();
    }
    assertThat(index.complete()).isTrue();
    assertThat(state.reads).isZero();
    assertThat(write(index, state, 3)).isNotNull(); // a hit
    assertThat(state.reads).isZero();
  }

  @Test
  void afterAnEvictionMissesReadTheState() throws Exception {
    KeyedMap state = new KeyedMap();
    KeyIndex index = throughWrites(state, 2, true);
    for (int key = 0; key < 5; key++) {
      write(index, state, key);
    }
    assertThat(index.complete()).isFalse();
    for (int key = 0; key < 5; key++) {
      assertThat(write(index, state, key)).as("key %d", key).isNotNull();
    }
    assertThat(state.reads).isPositive();
    assertThat(index.stateReads()).isEqualTo(state.reads);
  }

  @Test
  void aRestoredStateIsReadUntilItIsPreloaded() throws Exception {
    KeyedMap state = new KeyedMap();
    KeyIndex before = throughWrites(state, 10, true);
    write(before, state, 1);
    write(before, state, 2);

    KeyIndex restored = throughWrites(state, 10, false);
    assertThat(restored.complete()).isFalse();
    assertThat(write(restored, state, 1)).isNotNull();
    assertThat(state.reads).isEqualTo(1);

    KeyIndex preloaded = throughWrites(state, 10, false);
    for (Map.Entry<String, KeyEntry> stored : state.entries.entrySet()) {
      preloaded.preload(stored.getKey(), stored.getValue());
    }
    preloaded.markComplete();
    assertThat(preloaded.complete()).isTrue();
    assertThat(write(preloaded, state, 2)).isNotNull();
    assertThat(write(preloaded, state, 7)).isNull();
    assertThat(state.reads).isEqualTo(1);
  }

  @Test
  void updatesInPlaceNeverChangeAnObjectTheStateHolds() throws Exception {
    // A heap state backend keeps the objects it is given, for its snapshots too: the cached
    // entries, updated in place, must not be those.
    KeyedMap state = new KeyedMap();
    KeyIndex index = throughWrites(state, 10, true);
    String key = row(1).routingKey;
    write(index, state, 1);
    KeyEntry first = state.entries.get(key);
    write(index, state, 1);
    write(index, state, 1);
    assertThat(first.hlc).isEqualTo(1);
    assertThat(state.entries.get(key).hlc).isEqualTo(3);
    assertThat(write(index, state, 1).hlc).isEqualTo(3);
    assertThat(state.reads).isZero();

    KeyIndex preloaded = throughWrites(state, 10, false);
    KeyEntry restored = state.entries.get(key);
    preloaded.preload(key, restored);
    preloaded.markComplete();
    assertThat(write(preloaded, state, 1).hlc).isEqualTo(4);
    assertThat(write(preloaded, state, 1).hlc).isEqualTo(5);
    assertThat(restored.hlc).isEqualTo(4);
  }

  @Test
  void aKeyWrittenOnAndOnKeepsItsEntryWhileOthersAreEvicted() throws Exception {
    KeyedMap state = new KeyedMap();
    KeyIndex index = throughWrites(state, 100, true);
    // Key 0 is written between every two new keys: the other keys pass through the cache, and
    // each eviction finds key 0 used since the hand last passed it.
    for (int key = 1; key <= 1000; key++) {
      write(index, state, key);
      write(index, state, 0);
    }
    assertThat(index.complete()).isFalse();
    int readsBefore = state.reads;
    assertThat(write(index, state, 0)).isNotNull();
    assertThat(state.reads).as("key 0 was answered by the cache").isEqualTo(readsBefore);
    assertThat(index.cachedEntries()).isEqualTo(100);
  }

  @Test
  void theSameKeyInTwoTablesHasTwoEntriesAlsoWhenPreloaded() throws Exception {
    KeyedMap state = new KeyedMap();
    KeyIndex index = throughWrites(state, 10, true);
    write(index, state, row(TABLE, 1), 5);
    assertThat(write(index, state, row(OTHER_TABLE, 1), 9)).isNull();
    assertThat(write(index, state, row(TABLE, 1), 6).hlc).isEqualTo(5);

    KeyIndex preloaded = throughWrites(state, 10, false);
    for (Map.Entry<String, KeyEntry> stored : state.entries.entrySet()) {
      preloaded.preload(stored.getKey(), stored.getValue());
    }
    preloaded.markComplete();
    // Preloaded keys equal the keys of arriving rows, table UUIDs of other instances included.
    WalRow other = row(new String(OTHER_TABLE.toCharArray()), 1);
    assertThat(write(preloaded, state, other, 10).hlc).isEqualTo(9);
    assertThat(write(preloaded, state, row(TABLE, 1), 7).hlc).isEqualTo(6);
    assertThat(write(preloaded, state, row(OTHER_TABLE, 2), 1)).isNull();
    assertThat(state.reads).isZero();
  }

  @Test
  void withoutACacheEveryLookUpReadsTheState() throws Exception {
    KeyedMap state = new KeyedMap();
    KeyIndex index = throughWrites(state, 0, true);
    assertThat(index.complete()).isFalse();
    write(index, state, 1);
    assertThat(write(index, state, 1)).isNotNull();
    assertThat(state.reads).isEqualTo(2);
  }

  @Test
  void writesBehindReachTheStateByTheEndOfTheirBatch() throws Exception {
    KeyedMap state = new KeyedMap();
    try (BackgroundWrites writes = new BackgroundWrites("test-index-writes")) {
      KeyIndex index = new KeyIndex(state, state::setCurrent, 10, true, writes);
      for (int key = 0; key < 5; key++) {
        write(index, state, key);
      }
      assertThat(state.entries).as("collected, not yet handed over").isEmpty();
      index.endBatch();
      write(index, state, 5);
      index.endBatch();
      index.awaitWrites();
      assertThat(state.entries).hasSize(6);
      assertThat(state.entries.get(row(5).routingKey).hlc).isEqualTo(1);
      assertThat(state.reads).isZero();
    }
  }

  @Test
  void anEvictionAppliesTheWritesBehindBeforeTheStateIsRead() throws Exception {
    KeyedMap state = new KeyedMap();
    try (BackgroundWrites writes = new BackgroundWrites("test-index-writes")) {
      KeyIndex index = new KeyIndex(state, state::setCurrent, 3, true, writes);
      for (int round = 1; round <= 3; round++) {
        for (int key = 0; key < 8; key++) {
          KeyEntry read = write(index, state, key);
          // Every key was written once per earlier round, whether its entry is cached or not.
          assertThat(read == null ? 0 : read.hlc).as("round %d key %d", round, key)
              .isEqualTo(round - 1);
        }
        index.endBatch();
      }
      index.awaitWrites();
      assertThat(index.complete()).isFalse();
      assertThat(state.reads).isPositive();
      assertThat(state.entries).hasSize(8);
      assertThat(state.entries.values()).allSatisfy(entry -> assertThat(entry.hlc).isEqualTo(3));
    }
  }

  /** An index writing through to {@code state} (no writing thread). */
  private static KeyIndex throughWrites(KeyedMap state, int cacheEntries, boolean stateEmpty) {
    return new KeyIndex(state, state::setCurrent, cacheEntries, stateEmpty, null);
  }

  /** Reads {@code key}'s entry and writes a new version; returns the entry read. */
  private static KeyEntry write(KeyIndex index, KeyedMap state, int key) throws Exception {
    return write(index, state, row(TABLE, key), read -> read == null ? 1 : read.hlc + 1);
  }

  /** Reads the row's key's entry and writes a version at {@code hlc}; returns the entry read. */
  private static KeyEntry write(KeyIndex index, KeyedMap state, WalRow row, long hlc)
      throws Exception {
    return write(index, state, row, read -> hlc);
  }

  private static KeyEntry write(KeyIndex index, KeyedMap state, WalRow row,
      ToLongFunction<KeyEntry> hlcAfter) throws Exception {
    KeyIndex.Slot slot = index.read(row);
    KeyEntry read = slot.entry() == null ? null : slot.entry().copy(); // changes on update
    long hlc = hlcAfter.applyAsLong(read);
    slot.update(KeyEntry.live(new WalPosition(hlc, "s", 1, 0, 0), "file-" + hlc, 0));
    return read;
  }

  private static WalRow row(int key) {
    return row(TABLE, key);
  }

  private static WalRow row(String table, int key) {
    WalRow row = new WalRow();
    row.tableUuid = table;
    row.key = ByteBuffer.allocate(4).putInt(key).array();
    row.routingKey = WalRow.keyedRoutingKey(table, row.key);
    return row;
  }

  /** Keyed state as a map under the current key, counting reads. */
  private static final class KeyedMap implements ValueState<KeyEntry> {
    final Map<String, KeyEntry> entries = new HashMap<>();
    String current;
    int reads;

    void setCurrent(String key) {
      current = key;
    }

    @Override
    public KeyEntry value() {
      reads++;
      return entries.get(current);
    }

    @Override
    public void update(KeyEntry value) {
      entries.put(current, value);
    }

    @Override
    public void clear() {
      entries.remove(current);
    }
  }
}
