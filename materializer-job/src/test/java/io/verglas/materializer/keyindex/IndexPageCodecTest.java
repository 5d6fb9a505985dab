package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.testing.GoldenFiles;
import io.verglas.wal.WalPosition;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The bytes of a key index page: every kind of entry round-trips, and version 1 is pinned. */
class IndexPageCodecTest {
  static final String TABLE = "8d0e6f53-5b8a-4a43-9a43-2f4f0bb1d9a1";
  static final String OTHER_TABLE = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
  /** A data file named as the writer names its files (written in its compact form). */
  static final String NAMED = "data/00003-0-QUJDREVGR0hJSktMTU5PUA-00017.parquet";
  static final String LITERAL = "s3://elsewhere/warehouse/db/t/data/part-0001.parquet";

  @Test
  void everyKindOfEntryRoundTrips() {
    IndexPage page = page();
    IndexPage read = new IndexPage();
    IndexPageCodec codec = new IndexPageCodec();
    codec.decode(codec.encode(page), read);
    assertSamePage(read, page);
  }

  @Test
  void version1IsStable() throws Exception {
    byte[] bytes = new IndexPageCodec().encode(page());
    GoldenFiles.assertMatches("index-page-v1.bin", bytes);
    IndexPage read = new IndexPage();
    new IndexPageCodec().decode(GoldenFiles.read("index-page-v1.bin"), read);
    assertSamePage(read, page());
  }

  @Test
  void aSelectionOfEntriesNamesOnlyItsOwnTablesAndFiles() {
    IndexPage page = page();
    IndexPageCodec codec = new IndexPageCodec();
    byte[] one = codec.encode(page, new int[] {3}, 0, 1);
    IndexPage read = new IndexPage();
    codec.decode(one, read);
    assertThat(read.size()).isEqualTo(1);
    assertThat(read.table(0)).isEqualTo(OTHER_TABLE);
    assertThat(new String(one, StandardCharsets.ISO_8859_1)).doesNotContain(TABLE)
        .doesNotContain("elsewhere");
  }

  @Test
  void entriesAreAboutThirtyBytesEach() {
    IndexPage page = new IndexPage();
    for (int i = 0; i < PageLayout.ENTRIES_PER_PAGE; i++) {
      byte[] key = longKey(1_000_000 + i * 7919L);
      page.add(TABLE, key, PageLayout.pageHash(TABLE, KeyHash.of(key)),
          KeyEntry.live(new WalPosition(1_767_225_600_000L << 16 | i, "ingest-0", 40 + i % 3,
              0, 1_000 + i * 31), NAMED, 100_000 + i));
    }
    int bytes = new IndexPageCodec().encode(page).length;
    assertThat(bytes).isLessThan(32 * PageLayout.ENTRIES_PER_PAGE + 100);
  }

  @Test
  void refusesUnknownVersionsAndTrailingBytes() {
    IndexPageCodec codec = new IndexPageCodec();
    byte[] bytes = codec.encode(page());
    byte[] unknown = bytes.clone();
    unknown[0] = 9;
    assertThatThrownBy(() -> codec.decode(unknown, new IndexPage()))
        .hasMessage("Cannot read key index page of unknown version 9");
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> codec.decode(longer, new IndexPage()))
        .hasMessage("Cannot read key index page: 1 bytes after its last entry");
    byte[] shorter = Arrays.copyOf(bytes, bytes.length - 3);
    assertThatThrownBy(() -> codec.decode(shorter, new IndexPage()))
        .hasMessageStartingWith("Cannot read key index page: ");
  }

  /**
   * Two tables; long, short and empty keys; a tombstone; an entry without a stream; a named and
   * a literal file; numbers at the edges of their varints (batch and row as unsigned ints).
   */
  static IndexPage page() {
    IndexPage page = new IndexPage();
    add(page, TABLE, longKey(42), KeyEntry.live(new WalPosition(1234567890123L, "ingest-a", 7,
        2, 19), NAMED, 65_536));
    add(page, TABLE, "a key longer than sixteen bytes".getBytes(StandardCharsets.UTF_8),
        KeyEntry.live(new WalPosition(-5, "ingest-b", Long.MAX_VALUE, -1, Integer.MAX_VALUE),
            LITERAL, 0));
    add(page, TABLE, new byte[0], KeyEntry.tombstone(new WalPosition(99, "ingest-a", 8, 0, 0)));
    KeyEntry withoutStream = KeyEntry.live(new WalPosition(100, "unused", 0, 0, 0), NAMED, 3);
    withoutStream.streamId = null;
    add(page, OTHER_TABLE, longKey(42), withoutStream);
    return page;
  }

  private static void add(IndexPage page, String table, byte[] key, KeyEntry entry) {
    page.add(table, key, PageLayout.pageHash(table, KeyHash.of(key)), entry);
  }

  static byte[] longKey(long value) {
    return java.nio.ByteBuffer.allocate(Long.BYTES).putLong(value).array();
  }

  static void assertSamePage(IndexPage actual, IndexPage expected) {
    assertThat(actual.size()).isEqualTo(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual.table(i)).isEqualTo(expected.table(i));
      assertThat(actual.key(i)).isEqualTo(expected.key(i));
      assertThat(actual.hash(i)).isEqualTo(expected.hash(i));
      assertThat(actual.entry(i)).usingRecursiveComparison().isEqualTo(expected.entry(i));
    }
  }
}
