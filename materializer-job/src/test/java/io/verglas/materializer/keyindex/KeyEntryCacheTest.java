package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

/**
 * The key index's cache against a map of the last entry written per key: whatever it answers is
 * that entry, it never holds more than its capacity, it holds every key while it has said it lost
 * none (evicted, or refused for a table beyond its limit), and the strings it keeps are exactly
 * those its entries name.
 */
class KeyEntryCacheTest {
  private static final List<String> TABLES = List.of(
      "8d0e6f53-5b8a-4a43-9a43-2f4f0bb1d9a1", "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9",
      "00000000-0000-4000-8000-000000000000");
  private static final int[] KEY_LENGTHS = {3, 8, 16, 23};
  private static final List<String> STREAMS = List.of("ingest-a", "ingest-b", "ingest-c");
  private static final List<String> FILES = List.of("data/a.parquet", "data/b.parquet",
      "data/c.parquet", "data/d.parquet", "s3://elsewhere/e.parquet");

  @Property(tries = 200)
  void answersTheLastEntryWrittenWithinItsCapacity(
      @ForAll @IntRange(min = 1, max = 24) int capacity,
      @ForAll @IntRange(min = 1, max = 4) int maxTables,
      @ForAll("writes") List<Write> writes) {
    KeyEntryCache cache = new KeyEntryCache(capacity, maxTables);
    Map<Key, KeyEntry> model = new HashMap<>();
    boolean lost = false;
    boolean refused = false;
    for (Write write : writes) {
      byte[] keyBytes = keyBytes(write.key);
      int slot = cache.find(write.table, keyBytes);
      boolean taken = true;
      if (slot >= 0) {
        assertSame(cache.entry(slot), model.get(write.keyOf()));
        cache.update(slot, write.entry);
      } else {
        long evictions = cache.evictions();
        boolean lostOne = cache.insert(write.table, keyBytes, write.entry);
        taken = !lostOne || cache.evictions() > evictions;
        lost |= lostOne;
      }
      model.put(write.keyOf(), write.entry);
      int found = cache.find(write.table, keyBytes);
      if (taken) {
        assertThat(found).as("the key just written").isGreaterThanOrEqualTo(0);
        assertSame(cache.entry(found), write.entry);
      } else {
        assertThat(found).as("a key refused").isEqualTo(-1);
        refused = true;
      }
      checkAgainst(cache, model, capacity, lost);
    }
    Statistics.label("evicted").collect(cache.evictions() > 0);
    Statistics.label("refused").collect(refused);
  }

  @Test
  void aTableBeyondItsLimitIsNotCachedAndCostsNoOtherEntry() {
    KeyEntryCache cache = new KeyEntryCache(10, 2);
    assertThat(cache.insert(TABLES.get(0), keyBytes(1), entry(1, 0))).isFalse();
    assertThat(cache.insert(TABLES.get(1), keyBytes(2), entry(2, 1))).isFalse();

    assertThat(cache.insert(TABLES.get(2), keyBytes(3), entry(3, 2))).as("a third table").isTrue();

    assertThat(cache.find(TABLES.get(2), keyBytes(3))).isEqualTo(-1);
    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.evictions()).isZero();
    assertThat(cache.heldStrings()).as("two tables, a stream, two files").isEqualTo(5);
    assertThat(cache.entry(cache.find(TABLES.get(1), keyBytes(2))).hlc).isEqualTo(2);
  }

  private static void checkAgainst(KeyEntryCache cache, Map<Key, KeyEntry> model, int capacity,
      boolean lost) {
    assertThat(cache.size()).isLessThanOrEqualTo(capacity);
    int present = 0;
    Set<String> named = new HashSet<>();
    for (Map.Entry<Key, KeyEntry> written : model.entrySet()) {
      int slot = cache.find(written.getKey().table(), keyBytes(written.getKey().key()));
      if (slot < 0) {
        assertThat(lost).as("a key is missing, so the cache said it lost one").isTrue();
        continue;
      }
      present++;
      KeyEntry cached = cache.entry(slot);
      assertSame(cached, written.getValue());
      named.add("t:" + written.getKey().table());
      named.add("s:" + cached.streamId);
      if (cached.dataFile != null) {
        named.add("f:" + cached.dataFile);
      }
    }
    assertThat(present).as("every cached entry is a key written").isEqualTo(cache.size());
    assertThat(cache.heldStrings()).as("strings held").isEqualTo(named.size());
  }

  @Test
  void growsFromASmallTableAndKeepsEveryEntry() {
    KeyEntryCache cache = new KeyEntryCache(100_000);
    for (int key = 0; key < 100_000; key++) {
      cache.insert(TABLES.get(key % 3), keyBytes(key), entry(key, key % 5));
    }
    assertThat(cache.evictions()).isZero();
    for (int key = 0; key < 100_000; key++) {
      int slot = cache.find(TABLES.get(key % 3), keyBytes(key));
      assertThat(slot).as("key %d", key).isGreaterThanOrEqualTo(0);
      assertThat(cache.entry(slot).hlc).isEqualTo(key);
      assertThat(cache.find(TABLES.get((key + 1) % 3), keyBytes(key))).isEqualTo(-1);
    }
  }

  @Test
  void keysThatDifferOnlyInTrailingZerosAreDistinct() {
    KeyEntryCache cache = new KeyEntryCache(10);
    List<byte[]> keys = List.of(new byte[] {1}, new byte[] {1, 0}, new byte[8],
        new byte[16], new byte[17], new byte[] {});
    keys.get(2)[0] = 1;
    keys.get(3)[0] = 1;
    keys.get(4)[0] = 1;
    for (int i = 0; i < keys.size(); i++) {
      assertThat(cache.find(TABLES.get(0), keys.get(i))).as("key %d", i).isEqualTo(-1);
      cache.insert(TABLES.get(0), keys.get(i), entry(i, 0));
    }
    for (int i = 0; i < keys.size(); i++) {
      int slot = cache.find(TABLES.get(0), keys.get(i).clone());
      assertThat(cache.entry(slot).hlc).as("key %d", i).isEqualTo(i);
    }
  }

  @Test
  void aCapacityOutsideItsBoundsIsRefused() {
    assertThatThrownBy(() -> new KeyEntryCache(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not 0");
    assertThatThrownBy(() -> new KeyEntryCache(KeyEntryCache.MAX_CAPACITY + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Provide
  Arbitrary<List<Write>> writes() {
    Arbitrary<Write> write = Combinators.combine(
        Arbitraries.integers().between(0, TABLES.size() - 1),
        Arbitraries.integers().between(0, 60),
        Arbitraries.longs().between(-5, 1L << 40),
        Arbitraries.integers().between(0, STREAMS.size() - 1),
        Arbitraries.integers().between(-1, FILES.size() - 1),
        Arbitraries.integers().between(-1, Integer.MAX_VALUE))
        .as((table, key, hlc, stream, file, row) -> {
          KeyEntry entry = new KeyEntry();
          entry.hlc = hlc;
          entry.streamId = STREAMS.get(stream);
          entry.sequence = hlc >>> 3;
          entry.batch = row ^ 0x5a5a;
          entry.row = row;
          entry.deleted = file < 0;
          entry.dataFile = file < 0 ? null : FILES.get(file);
          entry.filePosition = file < 0 ? 0 : hlc & 0xffff;
          return new Write(TABLES.get(table), key, entry);
        });
    return write.list().ofMinSize(20).ofMaxSize(200);
  }

  private static KeyEntry entry(long hlc, int file) {
    KeyEntry entry = new KeyEntry();
    entry.hlc = hlc;
    entry.streamId = STREAMS.get(0);
    entry.dataFile = FILES.get(file);
    return entry;
  }

  private static void assertSame(KeyEntry actual, KeyEntry expected) {
    assertThat(actual).usingRecursiveComparison().isEqualTo(expected);
  }

  /**
   * Distinct bytes per key, of a length that varies with the key: shorter than a word, a word,
   * the most kept in the slot, and longer (kept beside it).
   */
  private static byte[] keyBytes(int key) {
    int length = KEY_LENGTHS[key % KEY_LENGTHS.length];
    ByteBuffer bytes = ByteBuffer.allocate(Math.max(length, 8))
        .put((byte) (key >>> 16)).put((byte) (key >>> 8)).put((byte) key)
        .put((byte) 0x5c);
    while (bytes.position() < length) {
      bytes.put((byte) (key * 31 + bytes.position()));
    }
    return Arrays.copyOf(bytes.array(), length);
  }

  private record Key(String table, int key) {}

  private record Write(String table, int key, KeyEntry entry) {
    Key keyOf() {
      return new Key(table, key);
    }
  }
}
