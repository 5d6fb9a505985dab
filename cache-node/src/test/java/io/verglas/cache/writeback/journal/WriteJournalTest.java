package io.verglas.cache.writeback.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.TestingGoldenFiles;
import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The write journal: golden bytes, replay of the dirty set, torn tails, damage, compaction. */
class WriteJournalTest {
  static final ObjectIdentity GOLDEN_ID = new ObjectIdentity("warehouse", "db/t/data/ünï-0001.parquet", "node-a-0042");
  static final JournalRecord.Staged GOLDEN = new JournalRecord.Staged(GOLDEN_ID, 8_388_613L,
      Map.of("content-type", "application/octet-stream", "x-amz-meta-owner", "ingest"), new Geometry(2, 1, 1 << 20),
      List.of(new Placement(0, "node-a"), new Placement(1, "node-c"), new Placement(2, "node-b")), 1_790_000_000_000L);

  @TempDir Path dir;

  static byte[] golden() throws IOException {
    return TestingGoldenFiles.hex(WriteJournalTest.class, "journal-v1.hex");
  }

  @Test
  void aStagedAndACleanRecordOfVersionOneHaveTheGoldenBytes() throws IOException {
    Path file = dir.resolve("journal");
    try (WriteJournal journal = WriteJournal.open(file)) {
      journal.append(GOLDEN);
      assertThat(journal.dirty()).containsExactly(GOLDEN);
      journal.append(new JournalRecord.Clean(GOLDEN_ID));
      assertThat(journal.dirty()).isEmpty();
    }
    assertThat(Files.readAllBytes(file)).isEqualTo(golden());
  }

  @Test
  void theGoldenFileReplaysAndWithoutItsCleanRecordIsDirty() throws IOException {
    byte[] golden = golden();
    Path file = Files.write(dir.resolve("golden"), golden);
    try (WriteJournal journal = WriteJournal.open(file)) {
      assertThat(journal.dirty()).isEmpty();
    }
    int cleanRecord = JournalCodec.frame(new JournalRecord.Clean(GOLDEN_ID)).length;
    Path staged = Files.write(dir.resolve("staged"), Arrays.copyOf(golden, golden.length - cleanRecord));
    try (WriteJournal journal = WriteJournal.open(staged)) {
      assertThat(journal.dirty()).containsExactly(GOLDEN);
      assertThat(journal.discardedBytes()).isZero();
    }
  }

  @Test
  void aDeleteRecordReplaysInJournalOrderAfterTheWriteItFollows() throws IOException {
    Path file = dir.resolve("journal");
    JournalRecord.Deleted deleted = new JournalRecord.Deleted(
        new ObjectIdentity(GOLDEN_ID.bucket(), GOLDEN_ID.key(), "node-a-0043"), 1_790_000_000_500L);
    try (WriteJournal journal = WriteJournal.open(file)) {
      journal.append(GOLDEN);
      journal.append(deleted);
    }
    assertThat(JournalCodec.frame(deleted)).hasSize(8 + 1 + 2 * 3 + 9 + GOLDEN_ID.key().getBytes(StandardCharsets.UTF_8).length
        + 11 + 8);
    try (WriteJournal journal = WriteJournal.open(file)) {
      assertThat(journal.pending()).containsExactly(GOLDEN, deleted);
      assertThat(journal.dirty()).as("staged writes only").containsExactly(GOLDEN);
      journal.append(new JournalRecord.Clean(deleted.identity()));
      assertThat(journal.pending()).containsExactly(GOLDEN);
    }
  }

  @Test
  void aDeleteRecordWithMetadataReplaysWithItAndOneWithoutKeepsItsBytes() throws IOException {
    Path file = dir.resolve("journal");
    JournalRecord.Deleted plain = new JournalRecord.Deleted(new ObjectIdentity("b", "k", "w-1"), 10);
    JournalRecord.Deleted expecting = new JournalRecord.Deleted(new ObjectIdentity("b", "k", "w-2"), 11,
        Map.of("x-verglas-origin-expect", "-,\"0123\""));
    assertThat(JournalCodec.frame(expecting)).hasSize(JournalCodec.frame(plain).length + 2 + 2 + 23 + 2 + 8);
    try (WriteJournal journal = WriteJournal.open(file)) {
      journal.append(plain);
      journal.append(expecting);
    }
    try (WriteJournal journal = WriteJournal.open(file)) {
      assertThat(journal.pending()).containsExactly(plain, expecting);
    }
  }

  @Test
  void replayAfterReopeningReturnsTheDirtySetInOrderAndCleanTwiceIsHarmless() throws IOException {
    Path file = dir.resolve("j");
    try (WriteJournal journal = WriteJournal.open(file)) {
      for (int i = 0; i < 5; i++) {
        journal.append(staged("w-" + i));
      }
      journal.append(new JournalRecord.Clean(id("w-1")));
      journal.append(new JournalRecord.Clean(id("w-1")));
      journal.append(new JournalRecord.Clean(id("never-staged")));
      journal.append(staged("w-3"));
    }
    try (WriteJournal journal = WriteJournal.open(file)) {
      assertThat(journal.dirty()).extracting(r -> r.identity().writeId()).containsExactly("w-0", "w-2", "w-3", "w-4");
    }
  }

  @Test
  void everyTornLastRecordIsDiscardedAndTheJournalStaysAppendable() throws IOException {
    byte[] golden = golden();
    int cleanRecord = JournalCodec.frame(new JournalRecord.Clean(GOLDEN_ID)).length;
    int stagedEnd = golden.length - cleanRecord;
    for (int cut = stagedEnd + 1; cut < golden.length; cut++) {
      Path file = Files.write(dir.resolve("torn-" + cut), Arrays.copyOf(golden, cut));
      try (WriteJournal journal = WriteJournal.open(file)) {
        assertThat(journal.dirty()).as("cut at %d", cut).containsExactly(GOLDEN);
        assertThat(journal.discardedBytes()).isEqualTo(cut - stagedEnd);
        journal.append(new JournalRecord.Clean(GOLDEN_ID));
      }
      assertThat(Files.readAllBytes(file)).isEqualTo(golden);
    }
  }

  @Test
  void aTornRecordWithGarbageBytesIsDiscardedButDamageBeforeIntactRecordsIsRefused() throws IOException {
    byte[] golden = golden();
    byte[] garbled = golden.clone();
    garbled[garbled.length - 3] ^= 0x55; // the last record's payload: looks like a torn append
    try (WriteJournal journal = WriteJournal.open(Files.write(dir.resolve("garbled-tail"), garbled))) {
      assertThat(journal.dirty()).containsExactly(GOLDEN);
    }
    byte[] damaged = golden.clone();
    damaged[40] ^= 0x55; // inside the staged record, with the clean record after it
    Path file = Files.write(dir.resolve("damaged"), damaged);
    assertThatThrownBy(() -> WriteJournal.open(file)).isInstanceOf(IOException.class)
        .hasMessageContaining("Cannot replay journal").hasMessageContaining("corrupt record at byte 8");
    assertThat(Files.readAllBytes(file)).as("left untouched").isEqualTo(damaged);
  }

  @Test
  void anotherFileOrVersionIsRefused() throws IOException {
    byte[] v2 = golden();
    v2[4] = 2;
    Path future = Files.write(dir.resolve("v2"), v2);
    assertThatThrownBy(() -> WriteJournal.open(future)).hasMessageContaining("unknown version 2");
    Path other = Files.write(dir.resolve("other"), "not a journal at all".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> WriteJournal.open(other)).hasMessageContaining("not a write journal");
  }

  @Test
  void compactionKeepsOnlyDirtyRecordsAndRunsByItself() throws IOException {
    Path file = dir.resolve("c");
    try (WriteJournal journal = WriteJournal.open(file)) {
      journal.append(staged("kept"));
      for (int i = 0; i < WriteJournal.COMPACT_SLACK / 2 + 2; i++) {
        journal.append(staged("gone-" + i));
        journal.append(new JournalRecord.Clean(id("gone-" + i)));
      }
      assertThat(journal.sizeBytes()).isLessThan(4096);
      journal.append(staged("after"));
    }
    try (WriteJournal journal = WriteJournal.open(file)) {
      assertThat(journal.dirty()).extracting(r -> r.identity().writeId()).containsExactly("kept", "after");
    }
  }

  @Test
  void invalidPlacementsAreRefused() {
    Geometry g = new Geometry(2, 1, 10);
    assertThatThrownBy(() -> new JournalRecord.Staged(id("x"), 1, Map.of(), g,
        List.of(new Placement(0, "a"), new Placement(1, "a")), 0)).hasMessageContaining("node a holds two fragments");
    assertThatThrownBy(() -> new JournalRecord.Staged(id("x"), 1, Map.of(), g, List.of(new Placement(3, "a")), 0))
        .hasMessageContaining("fragment 3 out of range");
  }

  private static ObjectIdentity id(String writeId) {
    return new ObjectIdentity("b", "k", writeId);
  }

  private static JournalRecord.Staged staged(String writeId) {
    return new JournalRecord.Staged(id(writeId), 10, Map.of(), new Geometry(2, 1, 8),
        List.of(new Placement(0, "n0"), new Placement(1, "n1")), 1);
  }
}
