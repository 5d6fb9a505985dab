package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.testing.GoldenFiles;
import io.verglas.wal.WalPosition;
import java.io.IOException;
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
    for (int i = 0; i < 2_000; i++) {
      WalPosition position = new WalPosition(random.nextLong(), "ingest-" + random.nextInt(3),
          random.nextInt(1 << 20), random.nextInt(50), random.nextInt(10_000));
      KeyEntry entry = random.nextInt(5) == 0 ? KeyEntry.tombstone(position)
          : KeyEntry.live(position, "s3://bucket/db/t/data/" + random.nextInt(30) + "-é.parquet",
              random.nextInt(1 << 24));
      entries.add(entry);
    }
    assertRoundTrip(entries);
  }

  @Test
  void extremeValuesSurviveTheCompactForm() throws Exception {
    assertRoundTrip(List.of(
        KeyEntry.live(new WalPosition(Long.MIN_VALUE, "s", Long.MAX_VALUE, Integer.MIN_VALUE,
            Integer.MAX_VALUE), "data/a.parquet", Long.MIN_VALUE),
        KeyEntry.live(new WalPosition(-1, "s", -1, -1, -1), "data/a.parquet", -1),
        KeyEntry.tombstone(new WalPosition(0, "s", 0, 0, 0))));
  }

  private void assertRoundTrip(List<KeyEntry> entries) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    for (KeyEntry entry : entries) {
      serializer.serialize(entry, out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (KeyEntry entry : entries) {
      assertThat(serializer.deserialize(in)).usingRecursiveComparison().isEqualTo(entry);
    }
    assertThat(in.available()).isZero();
  }

  /** What RocksDB copies per upsert: small positions take a byte or two, not eight. */
  @Test
  void aTypicalEntryIsCompact() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(KeyEntry.live(new WalPosition(System.currentTimeMillis() << 16,
        "ingest-0", 1_234, 3, 9_999),
        "data/00000-0-6c9a3bd4-96c8-4a5e-8c3f-1f0a2b3c4d5e-00001.parquet", 180_000), out);
    // flags 1, clock 8, stream 4 + 8, sequence 2, batch 1, row 2, path 4 + 63, position 3
    assertThat(out.length()).isEqualTo(96);
  }

  /** A name as the writer gives its files, with a Base64 operation id holding dashes. */
  private static final String WRITTEN_NAME = "data/00000-0-----az4AESIzRFVmd4iZoA-00001.parquet";

  @Test
  void aFileNamedByTheWriterTakesHalfTheBytes() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(KeyEntry.live(new WalPosition(System.currentTimeMillis() << 16,
        "ingest-0", 1_234, 3, 9_999), WRITTEN_NAME, 180_000), out);
    // flags 1, clock 8, stream 4 + 8, sequence 2, batch 1, row 2,
    // name 1 + (1 + 5 + 1 + 1 + 16 + 1), position 3
    assertThat(out.length()).isEqualTo(55);
  }

  @Test
  void namesOfTheWritersFormSurviveARoundTripAndOthersAreKeptAsTheyAre() throws Exception {
    List<String> names = List.of(WRITTEN_NAME,
        "data/day=2026-12-01/00003-2-----az4AESIzRFVmd4iZoA-00017.parquet",
        "s3://bucket/db/t/data/123456-7-AAAAAAAAAAAAAAAAAAAAAA-1234567.parquet",
        "00000-0-----az4AESIzRFVmd4iZoA-00001.parquet",
        // not the writer's spelling: kept as they are
        "data/0001-0-----az4AESIzRFVmd4iZoA-00001.parquet",
        "data/00000-00-----az4AESIzRFVmd4iZoA-00001.parquet",
        "data/00000-0-----az4AESIzRFVmd4iZo-00001.parquet",
        "data/00000-0-----az4AESIzRFVmd4iZoB-00001.parquet",
        "data/00000-0-----az4AESIzRFVmd4iZoA-00001.orc",
        "data/00000-0-----az4AESIzRFVmd4iZoA-1234567890.parquet",
        "data/-0-----az4AESIzRFVmd4iZoA-00001.parquet", "data/a.parquet", ".parquet", "");
    List<KeyEntry> entries = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      entries.add(KeyEntry.live(new WalPosition(i, "s", i, 0, i), names.get(i), i));
    }
    assertRoundTrip(entries);
  }

  /** Entries written by builds before the compact form, with fixed-width numbers. */
  @Test
  void readsTheFixedWidthEntriesOfEarlierBuilds() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeByte(2 | 4); // has stream, has file
    out.writeLong(77L << 16);
    writeString("ingest-1", out);
    out.writeLong(5_000_000_000L);
    out.writeInt(12);
    out.writeInt(345);
    writeString("s3://bucket/db/t/data/f.parquet", out);
    out.writeLong(6_789);
    out.writeByte(1 | 2); // a tombstone
    out.writeLong(78L << 16);
    writeString("ingest-1", out);
    out.writeLong(5_000_000_001L);
    out.writeInt(0);
    out.writeInt(1);
    out.writeLong(0);

    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    assertThat(serializer.deserialize(in)).usingRecursiveComparison().isEqualTo(KeyEntry.live(
        new WalPosition(77L << 16, "ingest-1", 5_000_000_000L, 12, 345),
        "s3://bucket/db/t/data/f.parquet", 6_789));
    assertThat(serializer.deserialize(in)).usingRecursiveComparison().isEqualTo(
        KeyEntry.tombstone(new WalPosition(78L << 16, "ingest-1", 5_000_000_001L, 0, 1)));
    assertThat(in.available()).isZero();
  }

  private static void writeString(String value, DataOutputSerializer out) throws Exception {
    byte[] bytes = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
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

    out.clear();
    for (int i = 0; i < 3; i++) {
      serializer.serialize(KeyEntry.live(new WalPosition(i, "s0", 0, 0, i), WRITTEN_NAME, i), out);
    }
    in = new DataInputDeserializer(out.getCopyOfBuffer());
    first = serializer.deserialize(in);
    assertThat(serializer.deserialize(in).dataFile).isSameAs(first.dataFile)
        .isEqualTo(WRITTEN_NAME);
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

  /**
   * Checkpoints taken before the key index had its own package name the snapshot class
   * {@code io.verglas.materializer.write.KeyEntrySerializer$Snapshot} (the golden bytes were
   * written by that build); they restore this package's serializer.
   */
  @Test
  void aSnapshotNamedBeforeThePackageSplitRestoresThisSerializer() throws IOException {
    byte[] golden = GoldenFiles.read("key-entry-serializer-snapshot-v1.bin");
    TypeSerializerSnapshot<KeyEntry> restored = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputDeserializer(golden), getClass().getClassLoader());

    assertThat(restored.getClass().getName())
        .isEqualTo("io.verglas.materializer.write.KeyEntrySerializer$Snapshot");
    assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    assertThat(serializer.snapshotConfiguration().resolveSchemaCompatibility(restored)
        .isCompatibleAsIs()).isTrue();
  }
}
