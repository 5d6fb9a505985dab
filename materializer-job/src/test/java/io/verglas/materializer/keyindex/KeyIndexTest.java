package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.data.BackgroundWrites;
import io.verglas.materializer.source.WalRow;
import io.verglas.wal.WalPosition;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * When the key index reads its state: never for a key the cache does not hold while the cache
 * holds every stored key, and always once it may not (a restored state not read in, an
 * eviction); and that what it writes back is what a later reader finds.
 */
class KeyIndexTest {
  static final String TABLE = "8d0e6f53-5b8a-4a43-9a43-2f4f0bb1d9a1";
  static final String OTHER_TABLE = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
  /** Key groups of the tests' writers: a few, so that keys fall into several. */
  static final int MAX_PARALLELISM = 4;
  private static final List<Integer> KEY_GROUPS = IntStream.range(0, MAX_PARALLELISM).boxed()
      .toList();

  @Test
  void aNewIndexAnswersNewKeysWithoutReadingTheState() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 10, true);
    for (int key = 0; key < 5; key++) {
      assertThat(write(index, key)).isNull();
    }
    assertThat(index.complete()).isTrue();
    assertThat(write(index, 3)).isNotNull(); // a hit
    assertThat(store.reads).isZero();
    assertThat(store.writes).as("nothing written back before the checkpoint").isZero();
    assertThat(index.stateReads()).isZero();
  }

  @Test
  void aWriteBackStoresTheLastEntryOfEachKey() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 10, true);
    for (int round = 1; round <= 3; round++) {
      for (int key = 0; key < 5; key++) {
        write(index, key);
      }
    }
    index.writeBack();
    for (int key = 0; key < 5; key++) {
      assertThat(stored(store, key).hlc).as("key %d", key).isEqualTo(3);
    }
    assertThat(stored(store, 5)).isNull();
  }

  @Test
  void aWriteBackOfSeveralChunksOfRecordsStoresThemAll() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 100_000, true);
    int keys = 3 * DirtyEntries.CHUNK + 5;
    for (int key = 0; key < keys; key++) {
      write(index, key);
    }
    for (int key = 0; key < keys; key += 2) {
      write(index, key);
    }
    index.writeBack();
    IndexPages pages = new IndexPages(store);
    assertThat(pages.entries(KEY_GROUPS)).isEqualTo(keys);
    for (int key = 0; key < keys; key++) {
      WalRow row = row(TABLE, key);
      assertThat(pages.lookup(row.tableUuid, row.key, keyGroup(row)).hlc).as("key %d", key)
          .isEqualTo(key % 2 == 0 ? 2 : 1);
    }
  }

  @Test
  void aWriteBackRewritesPagesFromTheirBytesInMemory() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 10_000, true);
    for (int round = 1; round <= 3; round++) {
      for (int key = 0; key < 1_000; key++) {
        write(index, key);
      }
      index.writeBack();
    }
    assertThat(index.pagesWritten()).isGreaterThan(3L * 1_000 / PageLayout.ENTRIES_PER_PAGE);
    assertThat(index.pagesRead()).as("pages read back from the state").isZero();
    KeyIndex restored = index(store, 0, false);
    assertThat(write(restored, 7).hlc).isEqualTo(3);
    assertThat(restored.pagesRead()).isEqualTo(1);
  }

  @Test
  void afterAnEvictionMissesReadTheState() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 2, true);
    for (int key = 0; key < 5; key++) {
      write(index, key);
    }
    assertThat(index.complete()).isFalse();
    for (int key = 0; key < 5; key++) {
      assertThat(write(index, key)).as("key %d", key).isNotNull();
    }
    assertThat(index.stateReads()).isPositive();
    for (int key = 0; key < 5; key++) {
      assertThat(write(index, key).hlc).as("key %d", key).isEqualTo(2);
    }
  }

  @Test
  void aRestoredStateIsReadUntilItIsReadIn() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex before = index(store, 10, true);
    write(before, 1);
    write(before, 2);
    before.writeBack();

    KeyIndex restored = index(store, 10, false);
    assertThat(restored.complete()).isFalse();
    assertThat(write(restored, 1)).isNotNull();
    assertThat(restored.stateReads()).isEqualTo(1);

    KeyIndex readIn = index(store.copy(), 10, false);
    assertThat(readIn.restore(KEY_GROUPS)).isEqualTo(2);
    assertThat(readIn.complete()).isTrue();
    assertThat(write(readIn, 2)).isNotNull();
    assertThat(write(readIn, 7)).isNull();
    assertThat(readIn.stateReads()).isZero();
  }

  @Test
  void aRestoredStateLargerThanTheCacheStaysInTheState() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex before = index(store, 10, true);
    for (int key = 0; key < 6; key++) {
      write(before, key);
    }
    before.writeBack();
    KeyIndex restored = index(store, 5, false);
    assertThat(restored.restore(KEY_GROUPS)).isEqualTo(6);
    assertThat(restored.complete()).isFalse();
    assertThat(restored.cachedEntries()).isZero();
    assertThat(write(restored, 5).hlc).isEqualTo(1);
  }

  @Test
  void aKeyWrittenOnAndOnKeepsItsEntryWhileOthersAreEvicted() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 100, true);
    // Key 0 is written between every two new keys: the other keys pass through the cache, and
    // each eviction finds key 0 used since the hand last passed it.
    for (int key = 1; key <= 1000; key++) {
      write(index, key);
      write(index, 0);
    }
    assertThat(index.complete()).isFalse();
    long readsBefore = index.stateReads();
    assertThat(write(index, 0)).isNotNull();
    assertThat(index.stateReads()).as("key 0 was answered by the cache").isEqualTo(readsBefore);
    assertThat(index.cachedEntries()).isEqualTo(100);
    for (int key = 1; key <= 1000; key++) {
      assertThat(write(index, key).hlc).as("key %d", key).isEqualTo(1);
    }
  }

  @Test
  void theSameKeyInTwoTablesHasTwoEntriesAlsoWhenReadIn() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 10, true);
    write(index, row(TABLE, 1), 5);
    assertThat(write(index, row(OTHER_TABLE, 1), 9)).isNull();
    assertThat(write(index, row(TABLE, 1), 6).hlc).isEqualTo(5);
    index.writeBack();

    KeyIndex readIn = index(store, 10, false);
    readIn.restore(KEY_GROUPS);
    // Stored keys equal the keys of arriving rows, table UUIDs of other instances included.
    WalRow other = row(new String(OTHER_TABLE.toCharArray()), 1);
    assertThat(write(readIn, other, 10).hlc).isEqualTo(9);
    assertThat(write(readIn, row(TABLE, 1), 7).hlc).isEqualTo(6);
    assertThat(write(readIn, row(OTHER_TABLE, 2), 1)).isNull();
    assertThat(readIn.stateReads()).isZero();
  }

  @Test
  void withoutACacheEveryLookUpReadsTheStateAndEveryBatchIsWrittenBack() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 0, true);
    assertThat(index.complete()).isFalse();
    write(index, 1);
    index.endBatch();
    assertThat(stored(store, 1)).isNotNull();
    assertThat(write(index, 1)).isNotNull();
    assertThat(index.stateReads()).isEqualTo(2);
  }

  @Test
  void writeBacksOnTheirThreadReachTheStateWhenAwaited() throws Exception {
    TestingPageStore store = new TestingPageStore();
    try (BackgroundWrites writes = new BackgroundWrites("test-index-writes")) {
      KeyIndex index = new KeyIndex(store, MAX_PARALLELISM, 10, true, writes);
      for (int key = 0; key < 4; key++) {
        write(index, key);
      }
      index.endBatch();
      assertThat(store.writes).as("collected: fewer than half the cache").isZero();
      write(index, 4);
      index.endBatch(); // five: half the cache
      write(index, 5);
      write(index, 6);
      index.writeBack();
      index.awaitWrites();
      for (int key = 0; key <= 6; key++) {
        assertThat(stored(store, key)).as("key %d", key).isNotNull();
      }
      assertThat(index.writeBacks()).isEqualTo(2);
      assertThat(index.stateReads()).isZero();
    }
  }

  @Test
  void anEvictionWritesBackWhatTheStateLacksBeforeItIsRead() throws Exception {
    TestingPageStore store = new TestingPageStore();
    try (BackgroundWrites writes = new BackgroundWrites("test-index-writes")) {
      KeyIndex index = new KeyIndex(store, MAX_PARALLELISM, 3, true, writes);
      for (int round = 1; round <= 3; round++) {
        for (int key = 0; key < 8; key++) {
          KeyEntry read = write(index, key);
          // Every key was written once per earlier round, whether its entry is cached or not.
          assertThat(read == null ? 0 : read.hlc).as("round %d key %d", round, key)
              .isEqualTo(round - 1);
        }
        index.endBatch();
      }
      index.writeBack();
      index.awaitWrites();
      assertThat(index.complete()).isFalse();
      assertThat(index.stateReads()).isPositive();
      for (int key = 0; key < 8; key++) {
        assertThat(stored(store, key).hlc).as("key %d", key).isEqualTo(3);
      }
    }
  }

  @Test
  void entriesOfAPerKeyIndexAreMigratedIntoPages() throws Exception {
    TestingPageStore store = new TestingPageStore();
    KeyIndex index = index(store, 10, false);
    for (int key = 0; key < 3; key++) {
      WalRow row = row(TABLE, key);
      index.migrate(row.routingKey, keyGroup(row),
          KeyEntry.live(new WalPosition(7, "s", 1, 0, key), "file-7", key));
    }
    index.finishMigration();
    assertThat(index.restore(KEY_GROUPS)).isEqualTo(3);
    assertThat(write(index, 2).filePosition).isEqualTo(2);
    assertThat(stored(store, 0).dataFile).isEqualTo("file-7");
  }

  /** An index over {@code store} with no write-back thread. */
  static KeyIndex index(IndexPageStore store, int cacheEntries, boolean stateEmpty) {
    return new KeyIndex(store, MAX_PARALLELISM, cacheEntries, stateEmpty, null);
  }

  /** The entry {@code store} holds for {@code key} of {@link #TABLE}. */
  static KeyEntry stored(IndexPageStore store, int key) throws Exception {
    WalRow row = row(TABLE, key);
    return new IndexPages(store).lookup(row.tableUuid, row.key, keyGroup(row));
  }

  /** Reads {@code key}'s entry and writes a new version; returns the entry read. */
  static KeyEntry write(KeyIndex index, int key) throws Exception {
    return write(index, row(TABLE, key), read -> read == null ? 1 : read.hlc + 1);
  }

  /** Reads the row's key's entry and writes a version at {@code hlc}; returns the entry read. */
  static KeyEntry write(KeyIndex index, WalRow row, long hlc) throws Exception {
    return write(index, row, read -> hlc);
  }

  private static KeyEntry write(KeyIndex index, WalRow row, ToLongFunction<KeyEntry> hlcAfter)
      throws Exception {
    KeyIndex.Slot slot = index.read(row);
    KeyEntry read = slot.entry() == null ? null : slot.entry().copy();
    long hlc = hlcAfter.applyAsLong(read);
    slot.update(KeyEntry.live(new WalPosition(hlc, "s", 1, 0, 0), "file-" + hlc, 0));
    return read;
  }

  static int keyGroup(WalRow row) {
    return org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignToKeyGroup(
        row.routingKey, MAX_PARALLELISM);
  }

  static WalRow row(String table, int key) {
    WalRow row = new WalRow();
    row.tableUuid = table;
    row.key = ByteBuffer.allocate(4).putInt(key).array();
    row.routingKey = WalRow.keyedRoutingKey(table, row.key);
    return row;
  }
}
