package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.TestingCorruption;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scrubber over a 2+1 write on four nodes: a clean pass changes nothing, a corrupt
 * fragment is re-encoded onto its node, a lost node's fragment is rebuilt on the unused node
 * and journaled, and corruption beyond the parity budget is reported, not "repaired".
 */
class ScrubberTest {
  @TempDir Path dir;
  private final List<FragmentNode> nodes = new ArrayList<>();
  private WriteBackConfig config;
  private WriteJournal journal;
  private WriteBackStager stager;
  private Scrubber scrubber;
  private byte[] body;
  private JournalRecord.Staged record;

  @BeforeEach
  void stage() throws IOException {
    config = WriteBackConfig.builder().directory(dir).cellBytes(8 << 10).build();
    for (int i = 0; i < 4; i++) {
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), 1 << 22)));
    }
    journal = WriteJournal.open(config.journalFile());
    stager = WriteBackStager.builder(config, journal).nodes(() -> nodes).origin(new TestingOrigin())
        .clock(() -> 1).writeIds(() -> "w-1").build();
    scrubber = new Scrubber(stager);
    body = new byte[100_000];
    new Random(3).nextBytes(body);
    record = ((StageOutcome.Acknowledged) stager.put("b", "k", Map.of(), body.length,
        new ByteArrayInputStream(body))).record();
  }

  @AfterEach
  void close() throws IOException {
    journal.close();
  }

  @Test
  void aCleanPassExaminesEveryFragmentAndChangesNothing() throws IOException {
    assertThat(scrubber.runOnce()).isEqualTo(new Scrubber.Report(3, 0, 0, 0));
    assertThat(journal.dirty()).containsExactly(record);
  }

  @Test
  void aCorruptFragmentIsReEncodedSoASecondCorruptionIsStillReadable() throws IOException {
    TestingCorruption.flipLastCellByte(holder(0).local());
    assertThat(scrubber.runOnce()).isEqualTo(new Scrubber.Report(3, 1, 1, 0));
    assertThat(scrubber.runOnce()).isEqualTo(new Scrubber.Report(3, 0, 0, 0));
    TestingCorruption.flipLastCellByte(holder(1).local());
    assertThat(read()).isEqualTo(body);
  }

  @Test
  void aLostNodesFragmentIsRebuiltOnTheUnusedNodeAndJournaled() throws IOException {
    FragmentNode gone = holder(2);
    FragmentNode unused = nodes.stream().filter(n -> record.placements().stream()
        .noneMatch(p -> p.nodeId().equals(n.id()))).findFirst().orElseThrow();
    nodes.remove(gone);
    assertThat(scrubber.runOnce()).isEqualTo(new Scrubber.Report(3, 1, 1, 0));
    try (WriteJournal reopened = WriteJournal.open(config.journalFile())) {
      assertThat(reopened.dirty()).singleElement().satisfies(r -> assertThat(r.placements())
          .extracting(Placement::nodeId).contains(unused.id()).doesNotContain(gone.id()).hasSize(3));
    }
    TestingCorruption.flipLastCellByte(holder(0).local());
    assertThat(read()).isEqualTo(body);
  }

  @Test
  void corruptionBeyondTheParityBudgetIsReportedAndLeftAlone() throws IOException {
    TestingCorruption.flipLastCellByte(holder(0).local());
    TestingCorruption.flipLastCellByte(holder(1).local());
    assertThat(scrubber.runOnce()).isEqualTo(new Scrubber.Report(3, 2, 0, 1));
    assertThat(journal.dirty()).containsExactly(record);
    for (Placement p : record.placements()) {
      assertThat(holder(p.fragment()).local().list()).as("fragment %d kept", p.fragment()).hasSize(1);
    }
  }

  /** The node holding fragment {@code index} of the write, as currently journaled. */
  private FragmentNode holder(int index) {
    String id = journal.dirty().get(0).placements().stream().filter(p -> p.fragment() == index)
        .findFirst().orElseThrow().nodeId();
    return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }

  private byte[] read() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(stager.get("b", "k", out)).isTrue();
    return out.toByteArray();
  }
}
