package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.testing.GoldenFiles;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.junit.jupiter.api.Test;

class WalSplitSerializerTest {
  static final WalSplit SPLIT =
      new WalSplit("_wal/ingest-1/00000000000000000042.vwal", "ingest-1", 42, 17);
  static final WalEnumeratorState STATE = new WalEnumeratorState(
      Map.of("ingest-1", "_wal/ingest-1/00000000000000000042.vwal",
          "ingest-2", "_wal/ingest-2/00000000000000000007.vwal"),
      List.of(new WalSplit("_wal/ingest-1/00000000000000000041.vwal", "ingest-1", 41, 0),
          SPLIT.withRowsEmitted(0)));

  @Test
  void splitRoundTrips() throws IOException {
    byte[] bytes = SimpleVersionedSerialization.writeVersionAndSerialize(
        WalSplitSerializer.INSTANCE, SPLIT);
    assertThat(SimpleVersionedSerialization.readVersionAndDeSerialize(
        WalSplitSerializer.INSTANCE, bytes)).isEqualTo(SPLIT);
  }

  @Test
  void splitVersion1IsStable() throws IOException {
    assertThat(WalSplitSerializer.INSTANCE.getVersion()).isEqualTo(1);
    GoldenFiles.assertMatches("wal-split-v1.bin", WalSplitSerializer.INSTANCE.serialize(SPLIT));
    assertThat(WalSplitSerializer.INSTANCE.deserialize(1, GoldenFiles.read("wal-split-v1.bin")))
        .isEqualTo(SPLIT);
  }

  @Test
  void splitRefusesUnknownVersions() {
    assertThatThrownBy(() -> WalSplitSerializer.INSTANCE.deserialize(2, new byte[8]))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot read WAL split: unknown version 2");
  }

  @Test
  void splitProgressIsACopy() {
    WalSplit later = SPLIT.withRowsEmitted(99);
    assertThat(SPLIT.rowsEmitted()).isEqualTo(17);
    assertThat(later.rowsEmitted()).isEqualTo(99);
    assertThat(later.splitId()).isEqualTo(SPLIT.splitId());
  }

  @Test
  void enumeratorStateRoundTrips() throws IOException {
    byte[] bytes = SimpleVersionedSerialization.writeVersionAndSerialize(
        WalEnumeratorStateSerializer.INSTANCE, STATE);
    assertThat(SimpleVersionedSerialization.readVersionAndDeSerialize(
        WalEnumeratorStateSerializer.INSTANCE, bytes)).isEqualTo(STATE);
    WalEnumeratorState empty = WalEnumeratorState.empty();
    assertThat(WalEnumeratorStateSerializer.INSTANCE.deserialize(1,
        WalEnumeratorStateSerializer.INSTANCE.serialize(empty))).isEqualTo(empty);
  }

  @Test
  void enumeratorStateVersion1IsStable() throws IOException {
    assertThat(WalEnumeratorStateSerializer.INSTANCE.getVersion()).isEqualTo(1);
    GoldenFiles.assertMatches("wal-enumerator-state-v1.bin",
        WalEnumeratorStateSerializer.INSTANCE.serialize(STATE));
    assertThat(WalEnumeratorStateSerializer.INSTANCE.deserialize(1,
        GoldenFiles.read("wal-enumerator-state-v1.bin"))).isEqualTo(STATE);
  }

  @Test
  void enumeratorStateRefusesUnknownVersions() {
    assertThatThrownBy(() -> WalEnumeratorStateSerializer.INSTANCE.deserialize(0, new byte[8]))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot read WAL enumerator state: unknown version 0");
  }
}
