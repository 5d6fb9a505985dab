package io.verglas.materializer.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.source.WalRow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class TableBufferTest {
  private static final String TABLE = "6f1c2b1e-0000-4000-8000-000000000001";
  private static final int MAX_PARALLELISM = 128;

  @Test
  void keepsTheNewestRowOfEachKeyWhateverTheArrivalOrder() {
    Random random = new Random(7);
    List<WalRow> rows = new ArrayList<>();
    Map<String, WalRow> newest = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      // Two streams whose clocks interleave: a lagging stream delivers older versions late.
      WalRow row = row("k" + random.nextInt(700), random.nextInt(50_000), "s" + random.nextInt(2),
          i);
      rows.add(row);
      newest.merge(row.routingKey, row,
          (a, b) -> a.position().compareTo(b.position()) >= 0 ? a : b);
    }
    Collections.shuffle(rows, random);
    TableBuffer buffer = new TableBuffer(TABLE, "ns.t", MAX_PARALLELISM);
    rows.forEach(buffer::add);

    List<WalRow> latest = buffer.latestPerKey();

    assertThat(latest).hasSize(newest.size());
    assertThat(latest).allSatisfy(row -> assertThat(row).isSameAs(newest.get(row.routingKey)));
    assertThat(buffer.keyedRows()).isEqualTo(rows.size());
  }

  @Test
  void keysWhoseRoutingKeysShareAStringHashStayApart() {
    // "Aa" and "BB" have the same String hash, so all 256 keys below do, and share a key group.
    List<String> keys = new ArrayList<>();
    for (int bits = 0; bits < 256; bits++) {
      StringBuilder key = new StringBuilder();
      for (int bit = 0; bit < 8; bit++) {
        key.append((bits >> bit & 1) == 0 ? "Aa" : "BB");
      }
      keys.add(key.toString());
    }
    assertThat(keys.stream().map(k -> (TABLE + "/" + k).hashCode()).distinct()).hasSize(1);
    TableBuffer buffer = new TableBuffer(TABLE, "ns.t", MAX_PARALLELISM);
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < keys.size(); i++) {
        buffer.add(row(keys.get(i), round * 1_000L + i, "s0", round * keys.size() + i));
      }
    }

    List<WalRow> latest = buffer.latestPerKey();

    assertThat(latest).hasSize(keys.size());
    assertThat(latest).extracting(row -> row.hlc)
        .allSatisfy(hlc -> assertThat(hlc).isGreaterThanOrEqualTo(2_000L));
    assertThat(latest).extracting(row -> row.routingKey).doesNotHaveDuplicates();
  }

  @Test
  void returnsRowsByKeyGroupEachKeyOnce() {
    Random random = new Random(11);
    TableBuffer buffer = new TableBuffer(TABLE, "ns.t", MAX_PARALLELISM);
    Set<String> routingKeys = new HashSet<>();
    for (int i = 0; i < 3_000; i++) {
      byte[] key = new byte[1 + random.nextInt(24)];
      random.nextBytes(key);
      WalRow row = row("unused", i, "s0", i);
      row.key = key;
      row.routingKey = WalRow.keyedRoutingKey(TABLE, key);
      routingKeys.add(row.routingKey);
      buffer.add(row);
    }
    List<WalRow> latest = buffer.latestPerKey();
    assertThat(latest).extracting(row -> row.routingKey)
        .doesNotHaveDuplicates().hasSize(routingKeys.size());
    assertThat(latest).extracting(
            row -> KeyGroupRangeAssignment.assignToKeyGroup(row.routingKey, MAX_PARALLELISM))
        .isSorted();
  }

  @Test
  void appendOnlyRowsAreAllKeptAndProgressCoversEverySegment() {
    TableBuffer buffer = new TableBuffer(TABLE, "ns.t", MAX_PARALLELISM);
    for (int i = 0; i < 10; i++) {
      WalRow row = row(null, i, "s0", i);
      row.sequence = i / 4;
      row.segmentKey = "_wal/s0/" + row.sequence;
      row.ordinal = i % 4;
      buffer.add(row);
    }
    assertThat(buffer.appends()).hasSize(10);
    assertThat(buffer.latestPerKey()).isEmpty();
    Map<String, SegmentProgress> segments = buffer.segments();
    assertThat(segments).containsOnlyKeys("_wal/s0/0", "_wal/s0/1", "_wal/s0/2");
    assertThat(segments.get("_wal/s0/1").streamId()).isEqualTo("s0");
    assertThat(segments.get("_wal/s0/2").sequence()).isEqualTo(2);
  }

  @Test
  void countsEveryRowAgainstTheByteBound() {
    TableBuffer buffer = new TableBuffer(TABLE, "ns.t", MAX_PARALLELISM);
    long grown = 0;
    for (int i = 0; i < 100; i++) {
      grown += buffer.add(row("same-key", i, "s0", i));
    }
    assertThat(buffer.bytes()).isEqualTo(grown).isGreaterThan(100L * TableBuffer.ROW_OVERHEAD);
    assertThat(buffer.latestPerKey()).singleElement()
        .extracting(row -> row.hlc).isEqualTo(99L);
  }

  /** A row of {@code key} (null: append-only) at clock {@code hlc}, row {@code index} of its segment. */
  private static WalRow row(String key, long hlc, String stream, int index) {
    WalRow row = new WalRow();
    row.tableUuid = new String(TABLE); // a fresh copy, as the network delivers it
    row.tableName = "ns.t";
    row.op = WalRow.UPSERT;
    row.hlc = hlc;
    row.streamId = stream;
    row.sequence = 0;
    row.batch = 0;
    row.row = index;
    row.ordinal = index;
    row.segmentRowCount = 1_000_000;
    row.segmentKey = "_wal/" + stream + "/0";
    row.payload = new byte[] {1};
    if (key != null) {
      row.key = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      row.routingKey = TABLE + "/" + key;
    } else {
      row.routingKey = TABLE + "/" + stream + "/" + index;
    }
    return row;
  }
}
