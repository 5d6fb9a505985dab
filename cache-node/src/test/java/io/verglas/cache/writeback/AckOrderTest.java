package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.ReplicaJournals;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acknowledgement order of one key's changes across coordinators: stamps above what the
 * coordinator knew (whatever its clock says), ties broken by write id the same on every node,
 * and a change that waits for another coordinator's older change of its key.
 */
class AckOrderTest {
  @TempDir Path dir;
  private final TestingOrigin origin = new TestingOrigin();
  private final List<FragmentNode> nodes = new ArrayList<>();
  private final AtomicInteger writeIds = new AtomicInteger();
  private WriteBackConfig config;
  private WriteJournal journal;
  private ReplicaJournals replicas;
  private WriteBackStager stager;

  @BeforeEach
  void start() throws IOException {
    config = WriteBackConfig.builder().directory(dir).cellBytes(16 << 10).build();
    for (int i = 0; i < 3; i++) {
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), 1 << 22)));
    }
    journal = WriteJournal.open(config.journalFile());
    replicas = ReplicaJournals.open(dir.resolve("replicas"));
    // this node's clock is far behind the other coordinator's
    stager = new WriteBackStager(config, journal, () -> nodes, origin, () -> 5, () -> "w-" + writeIds.incrementAndGet(),
        replicas);
  }

  @AfterEach
  void stop() throws IOException {
    journal.close();
    replicas.close();
  }

  @Test
  void aChangeAcknowledgedAfterAnotherCoordinatorsChangeOrdersAfterItWhateverTheClocks() throws IOException {
    JournalRecord.Staged theirs = theirs("k", "x-1", 1_000);
    replicas.append("node-b", theirs);

    JournalRecord.Staged mine = put("k");
    assertThat(mine.stagedAtMillis()).isEqualTo(1_001);
    assertThat(stager.latest("bucket", "k")).contains(mine);
    assertThat(stager.superseded(theirs)).isTrue();
    assertThat(stager.delete("bucket", "k").stagedAtMillis()).isEqualTo(1_002);
    assertThat(put("other").stagedAtMillis()).as("above every stamp given before").isEqualTo(1_003);
  }

  @Test
  void twoCoordinatorsChangesOfOneMillisecondOrderByWriteIdOnEveryNode() throws IOException {
    JournalRecord.Staged low = theirs("k", "a-1", 7);
    JournalRecord.Staged high = theirs("k", "b-1", 7);
    try (ReplicaJournals other = ReplicaJournals.open(dir.resolve("other"))) {
      replicas.append("node-a", low);
      replicas.append("node-b", high);
      other.append("node-b", high);
      other.append("node-a", low);
      assertThat(replicas.latest("bucket", "k")).contains(high);
      assertThat(other.latest("bucket", "k")).contains(high);
    }
  }

  @Test
  void aChangeWaitsUntilAnotherCoordinatorsOlderChangeOfItsKeyIsRetired() throws IOException {
    JournalRecord.Staged theirs = theirs("k", "x-1", 1_000);
    replicas.append("node-b", theirs);
    put("k");
    Propagator propagator = new Propagator(stager, journal, origin);

    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(0, 0, 1, 0, null));
    assertThat(origin.puts).hasValue(0);
    replicas.append("node-b", new JournalRecord.Clean(theirs.identity())); // node-b saw this one: superseded
    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(1, 0, 0, 0, null));
    assertThat(propagator.deferred()).isEqualTo(1);
    assertThat(journal.pending()).isEmpty();
  }

  private JournalRecord.Staged put(String key) throws IOException {
    byte[] body = new byte[1000];
    new Random(key.hashCode()).nextBytes(body);
    StageOutcome outcome = stager.put("bucket", key, Map.of(), body.length, new ByteArrayInputStream(body));
    return ((StageOutcome.Acknowledged) outcome).record();
  }

  private JournalRecord.Staged theirs(String key, String writeId, long stamp) {
    return new JournalRecord.Staged(new ObjectIdentity("bucket", key, writeId), 10, Map.of(), config.geometry(),
        List.of(), stamp);
  }
}
