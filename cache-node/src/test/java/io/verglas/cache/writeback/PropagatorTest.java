package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.ReplicaJournals;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
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
 * Propagation in one JVM: dirty writes reach the origin, are marked clean and their fragments
 * released; an origin outage loses nothing and recovery duplicates nothing; the last
 * acknowledged write of a key is the one the origin ends with. Across coordinators (their
 * journal copies in a real {@link ReplicaJournals}): stamps above what the coordinator knew,
 * whatever its clock says, ties broken by write id the same on every node, and a change that
 * waits for another coordinator's older change of its key.
 */
class PropagatorTest {
  @TempDir Path dir;
  private final TestingOrigin origin = new TestingOrigin();
  private final List<FragmentNode> nodes = new ArrayList<>();
  private final AtomicInteger writeIds = new AtomicInteger();
  private WriteBackConfig config;
  private WriteJournal journal;
  private ReplicaJournals replicas;
  private WriteBackStager stager;
  private Propagator propagator;

  @BeforeEach
  void start() throws IOException {
    config = WriteBackConfig.builder().directory(dir).cellBytes(16 << 10).build();
    for (int i = 0; i < 3; i++) {
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), 1 << 22)));
    }
    journal = WriteJournal.open(config.journalFile());
    replicas = ReplicaJournals.open(dir.resolve("replicas"));
    // this node's clock (1) is far behind the other coordinators' in the tests below
    stager = WriteBackStager.builder(config, journal).nodes(() -> nodes).origin(origin).clock(() -> 1)
        .writeIds(() -> "w-" + writeIds.incrementAndGet()).replicated(replicas).build();
    propagator = new Propagator(stager, journal, origin);
  }

  @AfterEach
  void stop() throws IOException {
    journal.close();
    replicas.close();
  }

  @Test
  void dirtyWritesReachTheOriginAndAreRetired() throws IOException {
    byte[] a = put("a", 100_000);
    byte[] b = put("b", 0);
    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(2, 0, 0, 0, null));
    assertThat(origin.objects).containsOnlyKeys("bucket/a", "bucket/b");
    assertThat(origin.objects.get("bucket/a")).isEqualTo(a);
    assertThat(origin.objects.get("bucket/b")).isEqualTo(b);
    assertRetired();
  }

  @Test
  void anOriginOutageLosesNothingAndRecoveryDuplicatesNothing() throws IOException {
    byte[] a = put("a", 50_000);
    origin.down = true;
    Propagator.Pass failed = propagator.runOnce();
    assertThat(failed.failed()).isEqualTo(1);
    assertThat(failed.lastError()).contains("Cannot propagate").contains("origin unavailable");
    assertThat(journal.dirty()).hasSize(1);
    assertThat(read("a")).isEqualTo(a);
    origin.down = false;
    assertThat(propagator.runOnce().propagated()).isEqualTo(1);
    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(0, 0, 0, 0, null));
    assertThat(origin.puts).hasValue(1);
    assertThat(origin.objects.get("bucket/a")).isEqualTo(a);
    assertRetired();
  }

  @Test
  void theLastAcknowledgedWriteIsTheOneTheOriginEndsWith() throws IOException {
    put("k", 30_000);
    origin.down = true;
    propagator.runOnce();
    byte[] newer = put("k", 40_000);
    origin.down = false;
    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(1, 1, 0, 0, null));
    assertThat(origin.puts).hasValue(1);
    assertThat(origin.objects.get("bucket/k")).isEqualTo(newer);
    assertRetired();
  }

  @Test
  void aChangeAcknowledgedAfterAnotherCoordinatorsChangeOrdersAfterItWhateverTheClocks() throws IOException {
    JournalRecord.Staged theirs = theirs("k", "x-1", 1_000);
    replicas.append("node-b", theirs);

    JournalRecord.Staged mine = staged("k");
    assertThat(mine.stagedAtMillis()).isEqualTo(1_001);
    assertThat(stager.latest("bucket", "k")).contains(mine);
    assertThat(stager.superseded(theirs)).isTrue();
    assertThat(stager.delete("bucket", "k").stagedAtMillis()).isEqualTo(1_002);
    assertThat(staged("other").stagedAtMillis()).as("above every stamp given before").isEqualTo(1_003);
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
    staged("k");

    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(0, 0, 1, 0, null));
    assertThat(origin.puts).hasValue(0);
    replicas.append("node-b", new JournalRecord.Clean(theirs.identity())); // node-b saw this one: superseded
    assertThat(propagator.runOnce()).isEqualTo(new Propagator.Pass(1, 0, 0, 0, null));
    assertThat(propagator.deferred()).isEqualTo(1);
    assertThat(journal.pending()).isEmpty();
  }

  private JournalRecord.Staged staged(String key) throws IOException {
    put(key, 1000);
    return stager.dirty("bucket", key).orElseThrow();
  }

  private JournalRecord.Staged theirs(String key, String writeId, long stamp) {
    return new JournalRecord.Staged(new ObjectIdentity("bucket", key, writeId), 10, Map.of(), config.geometry(),
        List.of(), stamp);
  }

  private byte[] put(String key, int length) throws IOException {
    byte[] body = new byte[length];
    new Random(length).nextBytes(body);
    assertThat(stager.put("bucket", key, Map.of(), length, new ByteArrayInputStream(body)))
        .isInstanceOf(StageOutcome.Acknowledged.class);
    return body;
  }

  private byte[] read(String key) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(stager.get("bucket", key, out)).isTrue();
    return out.toByteArray();
  }

  /** Nothing dirty, after reopening the journal too, and no fragment byte left on any node. */
  private void assertRetired() throws IOException {
    assertThat(journal.dirty()).isEmpty();
    try (WriteJournal reopened = WriteJournal.open(config.journalFile())) {
      assertThat(reopened.dirty()).isEmpty();
    }
    assertThat(stager.dirty("bucket", "a")).isEmpty();
    assertThat(stager.dirty("bucket", "k")).isEmpty();
    for (FragmentNode node : nodes) {
      assertThat(node.local().usedBytes()).isZero();
      assertThat(node.local().list()).isEmpty();
    }
  }
}
