package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Through the whole one-JVM stack (stores on disk, journal, stager): every acknowledged PUT of
 * a random body, geometry and node count reads back byte for byte after any {@code m} of its
 * fragment nodes lose their fragments, and again after the journal is reopened.
 */
class WriteBackStagerPropertiesTest {

  @Property(tries = 25)
  void anAcknowledgedPutSurvivesTheLossOfAnyMNodes(@ForAll @IntRange(min = 1, max = 4) int k,
      @ForAll @IntRange(min = 1, max = 3) int m, @ForAll @IntRange(min = 0, max = 2) int extraNodes,
      @ForAll @IntRange(min = 0, max = 200_000) int length, @ForAll long seed) throws IOException {
    Random random = new Random(seed);
    Path dir = Files.createTempDirectory("writeback-properties-");
    try {
      WriteBackConfig config = WriteBackConfig.builder().directory(dir).dataFragments(k).parityFragments(m)
          .ackFragments(k + random.nextInt(m + 1)).cellBytes(512 + random.nextInt(32 << 10)).build();
      List<FragmentNode> nodes = new ArrayList<>();
      for (int i = 0; i < k + m + extraNodes; i++) {
        nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), 1 << 22)));
      }
      byte[] body = new byte[length];
      random.nextBytes(body);
      JournalRecord.Staged record;
      try (WriteJournal journal = WriteJournal.open(config.journalFile())) {
        WriteBackStager stager = stager(config, journal, nodes, "w-" + seed);
        StageOutcome outcome = stager.put("b", "k", Map.of(), length, new ByteArrayInputStream(body));
        assertThat(outcome).as("seed %d", seed).isInstanceOf(StageOutcome.Acknowledged.class);
        record = ((StageOutcome.Acknowledged) outcome).record();
      }
      List<Placement> lost = new ArrayList<>(record.placements());
      Collections.shuffle(lost, random);
      for (Placement p : lost.subList(0, random.nextInt(m + 1))) {
        nodes.stream().filter(n -> n.id().equals(p.nodeId())).findFirst().orElseThrow()
            .store().release(record.identity(), p.fragment());
      }
      try (WriteJournal journal = WriteJournal.open(config.journalFile())) {
        WriteBackStager restarted = stager(config, journal, nodes, "unused");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(restarted.get("b", "k", out)).isTrue();
        assertThat(out.toByteArray()).as("seed %d, %s", seed, config.geometry()).isEqualTo(body);
      }
    } finally {
      TestingDirectories.delete(dir);
    }
  }

  private static WriteBackStager stager(WriteBackConfig config, WriteJournal journal, List<FragmentNode> nodes,
      String writeId) {
    return WriteBackStager.builder(config, journal).nodes(() -> nodes).origin(new TestingOrigin()).clock(() -> 0)
        .writeIds(() -> writeId).build();
  }
}
