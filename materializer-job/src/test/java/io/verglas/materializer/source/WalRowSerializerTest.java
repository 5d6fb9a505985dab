package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.types.SerializerTypeInfo;
import java.util.Arrays;
import java.util.Random;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class WalRowSerializerTest {
  private final TypeSerializer<WalRow> serializer =
      new SerializerTypeInfo<>(WalRow.class, WalRowSerializer::new)
          .createSerializer(new SerializerConfigImpl());

  @Test
  void everyFieldSurvivesTheWireIncludingNullsAndNonAsciiText() throws Exception {
    Random random = new Random(17);
    DataOutputSerializer out = new DataOutputSerializer(64);
    WalRow[] rows = new WalRow[500];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = random(random);
      serializer.serialize(rows[i], out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (WalRow row : rows) {
      assertThat(describe(serializer.deserialize(in))).isEqualTo(describe(row));
    }
    assertThat(in.available()).isZero();
  }

  @Test
  void rowsOfOneSegmentShareTheirTableStreamAndSegmentStrings() throws Exception {
    Random random = new Random(5);
    WalRow first = random(random);
    WalRow second = random(random);
    second.tableUuid = first.tableUuid;
    second.tableName = first.tableName;
    second.streamId = "ingest-x";
    second.segmentKey = first.segmentKey;
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(first, out);
    serializer.serialize(second, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());

    WalRow firstRead = serializer.deserialize(in);
    WalRow secondRead = serializer.deserialize(in);

    assertThat(describe(secondRead)).isEqualTo(describe(second));
    assertThat(secondRead.tableUuid).isSameAs(firstRead.tableUuid);
    assertThat(secondRead.segmentKey).isSameAs(firstRead.segmentKey);
    assertThat(secondRead.routingKey).isNotSameAs(firstRead.routingKey);
  }

  @Test
  void copiesAreEqualRowsSharingTheArraysNoOneWrites() throws Exception {
    WalRow row = random(new Random(3));
    row.key = new byte[] {1, 2};
    WalRow copy = serializer.copy(row);
    assertThat(describe(copy)).isEqualTo(describe(row));
    assertThat(copy).isNotSameAs(row);
    assertThat(copy.key).isSameAs(row.key);
    assertThat(copy.payload).isSameAs(row.payload);
    copy.tableName = "changed";
    assertThat(row.tableName).isNotEqualTo("changed");

    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(row, out);
    DataOutputSerializer copied = new DataOutputSerializer(64);
    serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
    assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
  }

  @Test
  void itsSnapshotRestoresTheSameSerializer() throws Exception {
    TypeSerializerSnapshot<WalRow> snapshot = serializer.snapshotConfiguration();
    assertThat(snapshot.restoreSerializer()).isInstanceOf(WalRowSerializer.class)
        .isNotSameAs(serializer).isEqualTo(serializer);
    assertThat(snapshot.resolveSchemaCompatibility(snapshot).isCompatibleAsIs()).isTrue();
  }

  private static WalRow random(Random random) {
    WalRow row = new WalRow();
    boolean appendOnly = random.nextInt(4) == 0;
    row.tableUuid = "0b1c" + random.nextInt(1000);
    row.tableName = random.nextBoolean() ? "db.orders" : "db.bestellungen_ü_東京";
    row.op = random.nextBoolean() ? WalRow.UPSERT : WalRow.DELETE;
    row.hlc = random.nextLong();
    row.streamId = random.nextInt(10) == 0 ? null : "ingest-" + random.nextInt(4);
    row.sequence = random.nextInt(1 << 20);
    row.batch = random.nextInt(100);
    row.row = random.nextInt(10_000);
    row.ordinal = random.nextLong() & Long.MAX_VALUE;
    row.segmentRowCount = random.nextInt(1 << 20);
    row.key = appendOnly ? null : bytes(random, 1 + random.nextInt(20));
    row.payload = bytes(random, random.nextInt(300));
    row.schemaId = random.nextInt(5);
    row.segmentKey = "_wal/" + row.streamId + "/" + row.sequence;
    row.routingKey = appendOnly ? row.tableUuid + "/x" : row.tableUuid + "/" + row.row;
    return row;
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static String describe(WalRow row) {
    return String.join("|", row.routingKey, row.tableUuid, row.tableName, "" + (char) row.op,
        "" + row.hlc, String.valueOf(row.streamId), "" + row.sequence, "" + row.batch,
        "" + row.row, "" + row.ordinal, "" + row.segmentRowCount, row.segmentKey,
        Arrays.toString(row.key), Arrays.toString(row.payload), "" + row.schemaId);
  }
}
