package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.table.VerglasTables;
import io.verglas.materializer.testing.TestingWalStore;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.util.List;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.junit.jupiter.api.Test;

class WalSplitReaderTest {
  static final WalLayout LAYOUT = WalLayout.defaults();
  static final String KEY = LAYOUT.segmentKey("s1", 3);

  @Test
  void aCorruptSegmentFailsLoudly() throws Exception {
    TestingWalStore store = new TestingWalStore(LAYOUT);
    byte[] bytes = WalSegmentCodec.encode(new WalSegmentHeader("uuid", List.of("db", "t"), 0,
        "s1", 3, 1, 1, 1, 1), List.of(new WalBatch(1, 1, null, new byte[] {1, 2, 3})));
    bytes[bytes.length - 6] ^= 0x55; // flip bits in the body
    store.put(KEY, bytes);
    try (WalSplitReader reader = new WalSplitReader(store, new VerglasTables(null))) {
      reader.handleSplitsChanges(new SplitsAddition<>(List.of(new WalSplit(KEY, "s1", 3, 0))));
      assertThatThrownBy(reader::fetch)
          .isInstanceOf(CorruptSegmentException.class)
          .hasMessage("Cannot read WAL segment " + KEY + ": Cannot read WAL segment: body checksum mismatch");
    }
  }

  @Test
  void aSegmentWhoseHeaderDisagreesWithItsKeyIsCorrupt() throws Exception {
    TestingWalStore store = new TestingWalStore(LAYOUT);
    store.put(KEY, WalSegmentCodec.encode(new WalSegmentHeader("uuid", List.of("db", "t"), 0,
        "s2", 3, 0, 0, 0, 0), List.of()));
    try (WalSplitReader reader = new WalSplitReader(store, new VerglasTables(null))) {
      reader.handleSplitsChanges(new SplitsAddition<>(List.of(new WalSplit(KEY, "s1", 3, 0))));
      assertThatThrownBy(reader::fetch).isInstanceOf(CorruptSegmentException.class)
          .hasMessageContaining("its header names stream s2 sequence 3");
    }
  }

  @Test
  void aMissingSegmentWasCommittedBeforeAndFinishesEmpty() throws Exception {
    TestingWalStore store = new TestingWalStore(LAYOUT);
    try (WalSplitReader reader = new WalSplitReader(store, new VerglasTables(null))) {
      reader.handleSplitsChanges(new SplitsAddition<>(List.of(new WalSplit(KEY, "s1", 3, 0))));
      RecordsWithSplitIds<WalRow> records = reader.fetch();
      assertThat(records.finishedSplits()).containsExactly(KEY);
      assertThat(records.nextSplit()).isNull();
    }
  }
}
