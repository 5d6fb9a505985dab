package io.verglas.materializer.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.wal.WalPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class KeyEntrySerializerTest {
  private final KeyEntrySerializer serializer = new KeyEntrySerializer();

  @Test
  void liveEntriesAndTombstonesSurviveARoundTrip() throws Exception {
    Random random = new Random(11);
    List<KeyEntry> entries = new ArrayList<>();
    DataOutputSerializer out = new DataOutputSerializer(64);
    for (int i = 0; i < 2_000; i++) {
      WalPosition position = new WalPosition(random.nextLong(), "ingest-" + random.nextInt(3),
          random.nextInt(1 << 20), random.nextInt(50), random.nextInt(10_000));
      KeyEntry entry = random.nextInt(5) == 0 ? KeyEntry.tombstone(position)
          : KeyEntry.live(position, "s3://bucket/db/t/data/" + random.nextInt(30) + "-é.parquet",
              random.nextInt(1 << 24));
      entries.add(entry);
      serializer.serialize(entry, out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (KeyEntry entry : entries) {
      assertThat(serializer.deserialize(in)).usingRecursiveComparison().isEqualTo(entry);
    }
    assertThat(in.available()).isZero();
  }

  @Test
  void entriesOfTheSameFileShareThePathInstance() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    String path = "s3://bucket/db/t/data/00000-0-abc-00001.parquet";
    for (int i = 0; i < 3; i++) {
      serializer.serialize(KeyEntry.live(new WalPosition(i, "s0", 0, 0, i), path, i), out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    KeyEntry first = serializer.deserialize(in);
    assertThat(serializer.deserialize(in).dataFile).isSameAs(first.dataFile).isEqualTo(path);
    assertThat(serializer.deserialize(in).streamId).isSameAs(first.streamId);
  }

  @Test
  void readsItsOwnSnapshotAsIsAndMigratesAPojoWrittenIndex() {
    TypeSerializerSnapshot<KeyEntry> own = serializer.snapshotConfiguration();
    assertThat(own.resolveSchemaCompatibility(own).isCompatibleAsIs()).isTrue();
    assertThat(own.restoreSerializer()).isEqualTo(serializer).isNotSameAs(serializer);

    TypeSerializerSnapshot<KeyEntry> pojo = TypeInformation.of(KeyEntry.class)
        .createSerializer(new SerializerConfigImpl()).snapshotConfiguration();
    assertThat(own.resolveSchemaCompatibility(pojo).isCompatibleAfterMigration()).isTrue();
  }
}
