package io.verglas.materializer.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.testing.GoldenFiles;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class TableDeltaSerializerTest {
  static final String F0 = "s3://b/w/db/users/data/f0.parquet";
  static final List<String> FILES = List.of(
      "{\"spec-id\":0,\"content\":\"DATA\",\"file-path\":\"s3://b/w/db/users/data/f1.parquet\"}");
  static final Map<String, SegmentProgress> SEGMENTS = Map.of(
      "_wal/ingest-1/00000000000000000004.vwal", new SegmentProgress("ingest-1", 4, 10, 10),
      "_wal/ingest-1/00000000000000000005.vwal", new SegmentProgress("ingest-1", 5, 3, 8));
  /** Positions 9, 3 (twice) and 0; keys known for all but position 0. */
  static final TableDelta DELTA = new TableDelta("6f1c2a7e-0000-4000-8000-000000000001",
      "db.users", 7, 1, FILES,
      Map.of(F0, DeletedRows.builder().add(9, new byte[] {1, 0, 0, 0, 1, 0, 0, 0, 9})
          .add(3, new byte[] {1, 0, 0, 0, 1, 0, 0, 0, 3}).add(3, null).add(0, null).build()),
      SEGMENTS);
  /** What version 1 held: the same positions, no keys. */
  static final TableDelta DELTA_WITHOUT_KEYS = new TableDelta(DELTA.tableUuid(), "db.users", 7, 1,
      FILES, Map.of(F0, DeletedRows.of(9, 3, 3, 0)), SEGMENTS);

  @Test
  void roundTripsWithItsVersion() throws IOException {
    byte[] bytes = SimpleVersionedSerialization.writeVersionAndSerialize(
        TableDeltaSerializer.INSTANCE, DELTA);
    TableDelta read = SimpleVersionedSerialization.readVersionAndDeSerialize(
        TableDeltaSerializer.INSTANCE, bytes);
    assertThat(read).isEqualTo(DELTA);
    DeletedRows rows = read.deletedRows().get(F0);
    assertThat(rows.positions()).containsExactly(0, 3, 9);
    assertThat(rows.key(0)).isNull();
    assertThat(rows.key(1)).containsExactly(1, 0, 0, 0, 1, 0, 0, 0, 3);
    assertThat(rows.hasAllKeys()).isFalse();
  }

  @Test
  void version2IsStable() throws IOException {
    assertThat(TableDeltaSerializer.INSTANCE.getVersion()).isEqualTo(2);
    GoldenFiles.assertMatches("table-delta-v2.bin", TableDeltaSerializer.INSTANCE.serialize(DELTA));
    assertThat(TableDeltaSerializer.INSTANCE.deserialize(2, GoldenFiles.read("table-delta-v2.bin")))
        .isEqualTo(DELTA);
  }

  @Test
  void version1IsStillReadWithUnknownKeys() throws IOException {
    TableDelta read =
        TableDeltaSerializer.INSTANCE.deserialize(1, GoldenFiles.read("table-delta-v1.bin"));
    assertThat(read).isEqualTo(DELTA_WITHOUT_KEYS);
    assertThat(read.deletes().get(F0)).containsExactly(0, 3, 9);
  }

  @Test
  void refusesUnknownVersionsAndTrailingBytes() throws IOException {
    assertThatThrownBy(() -> TableDeltaSerializer.INSTANCE.deserialize(9, new byte[0]))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot read table delta: unknown version 9");
    byte[] bytes = TableDeltaSerializer.INSTANCE.serialize(DELTA);
    byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> TableDeltaSerializer.INSTANCE.deserialize(2, longer))
        .hasMessageContaining("trailing bytes");
  }

  @Test
  void flinkTypeSerializerUsesTheVersionedBytes() throws IOException {
    TypeSerializer<TableDelta> serializer =
        TableDeltaTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl());
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(DELTA, out);
    assertThat(serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
        .isEqualTo(DELTA);
  }

  @Test
  void mergeUnitesFilesDeletesAndProgress() {
    TableDelta other = new TableDelta(DELTA.tableUuid(), "db.users", 7, 0, List.of("{}"),
        Map.of("s3://b/w/db/users/data/f0.parquet", DeletedRows.of(4, 0)),
        Map.of("_wal/ingest-1/00000000000000000005.vwal", new SegmentProgress("ingest-1", 5, 8, 8)));
    TableDelta merged = TableDelta.merge(List.of(DELTA, other));
    assertThat(merged.subtask()).isEqualTo(-1);
    assertThat(merged.dataFiles()).hasSize(2);
    assertThat(merged.deletes().get("s3://b/w/db/users/data/f0.parquet")).containsExactly(0, 3, 4, 9);
    assertThat(merged.deletedRows().get(F0).key(2)).isNull(); // position 4: no key given
    assertThat(merged.deletedRows().get(F0).key(3)).isNotNull(); // position 9 kept its key
    assertThat(merged.segments().get("_wal/ingest-1/00000000000000000005.vwal").complete()).isTrue();
    assertThat(merged.streams()).containsEntry("ingest-1", new SegmentProgress("ingest-1", 5, 8, 8));
  }
}
