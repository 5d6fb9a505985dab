package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.verglas.cache.writeback.code.NotEnoughFragmentsException;
import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.TestingCorruption;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-back quorum of one coordinator over three fragment stores standing in for nodes:
 * the acknowledgment threshold (the fragments' commits in parallel), write-through when nodes lack room, a mid-stream shortfall
 * with at least k and with fewer than k fragments, reads by reconstruction, restart.
 */
class WriteBackStagerTest {
  static final Map<String, String> META = Map.of("content-type", "application/octet-stream");

  @TempDir Path dir;
  private final TestingOrigin origin = new TestingOrigin();
  private final List<FragmentNode> nodes = new ArrayList<>();
  private final AtomicInteger writeIds = new AtomicInteger();
  private final ExecutorService commits = Executors.newFixedThreadPool(3);
  private WriteJournal journal;

  @AfterEach
  void closeJournal() throws IOException {
    commits.shutdownNow();
    if (journal != null) {
      journal.close();
    }
  }

  @Test
  void aPutIsAcknowledgedAfterWFragmentsAndTheJournalAndReadsBackThroughALostNode() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    byte[] body = body(300_000);
    StageOutcome outcome = stager.put("b", "t/data/1.parquet", META, body.length, new ByteArrayInputStream(body));
    assertThat(outcome).isInstanceOf(StageOutcome.Acknowledged.class);
    JournalRecord.Staged record = ((StageOutcome.Acknowledged) outcome).record();
    assertThat(record.placements()).extracting(Placement::nodeId).doesNotHaveDuplicates().hasSize(3);
    assertThat(journal.dirty()).containsExactly(record);
    for (FragmentNode node : nodes) {
      assertThat(node.local().list()).hasSize(1);
    }
    assertThat(get(stager, "b", "t/data/1.parquet")).isEqualTo(body);
    TestingDirectories.delete(nodes.get(1).local().directory());
    assertThat(get(stager, "b", "t/data/1.parquet")).isEqualTo(body);
    assertThat(origin.objects).isEmpty();
  }

  @Test
  void aCorruptFragmentIsReadAroundAndTwoFailTheRead() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    byte[] body = body(200_000);
    stager.put("b", "k", META, body.length, new ByteArrayInputStream(body));
    TestingCorruption.flipLastCellByte(nodes.get(0).local());
    assertThat(get(stager, "b", "k")).isEqualTo(body);
    TestingCorruption.flipLastCellByte(nodes.get(2).local());
    assertThatThrownBy(() -> get(stager, "b", "k")).isInstanceOf(NotEnoughFragmentsException.class)
        .hasMessageContaining("only 1 intact fragments of the 2 needed");
  }

  @Test
  void fewerThanWNodesWithRoomWritesThroughBeforeReadingTheBody() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    nodes.set(2, new FragmentNode("node-2", FragmentStore.open(dir.resolve("tiny"), 1000)));
    byte[] body = body(100_000);
    StageOutcome outcome = stager.put("b", "k", META, body.length, new ByteArrayInputStream(body));
    assertWrittenThrough(stager, outcome, body, "only 2 nodes have room for a fragment, w=3");
  }

  @Test
  void aMidStreamShortfallWithKFragmentsIsReconstructedToTheOrigin() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    byte[] body = body(500_000);
    StageOutcome outcome = stager.put("b", "k", META, body.length, failingNodesAfter(body, 200_000, 1));
    assertWrittenThrough(stager, outcome, body, "only 2 fragments durable, w=3");
  }

  @Test
  void aMidStreamShortfallBelowKFailsAndLeavesNothing() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    byte[] body = body(500_000);
    assertThatThrownBy(() -> stager.put("b", "k", META, body.length, failingNodesAfter(body, 200_000, 2)))
        .isInstanceOf(WriteBackFailedException.class)
        .hasMessage("Cannot stage PUT of b/k: only 1 fragments durable, k=2");
    assertThat(origin.objects).isEmpty();
    assertNothingStaged(stager);
  }

  @Test
  void aFragmentWhoseCommitFailsDoesNotCountAndTheWriteIsNotAcknowledged() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    byte[] body = body(500_000);
    // every cell reaches node 0's file, but its directory is gone when the fragment is committed
    StageOutcome outcome = stager.put("b", "k", META, body.length, failingNodesAfter(body, body.length, 1));
    assertWrittenThrough(stager, outcome, body, "only 2 fragments durable, w=3");
  }

  @Test
  void withWEqualToKOneLostNodeStillAcknowledges() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 2);
    byte[] body = body(500_000);
    StageOutcome outcome = stager.put("b", "k", META, body.length, failingNodesAfter(body, 100_000, 1));
    assertThat(outcome).isInstanceOf(StageOutcome.Acknowledged.class);
    assertThat(((StageOutcome.Acknowledged) outcome).record().placements()).hasSize(2);
    assertThat(get(stager, "b", "k")).isEqualTo(body);
  }

  @Test
  void theLastAcknowledgedWriteWinsAndSurvivesARestart() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    byte[] first = body(70_000);
    byte[] second = body(12_345);
    stager.put("b", "k", META, first.length, new ByteArrayInputStream(first));
    stager.put("b", "k", META, second.length, new ByteArrayInputStream(second));
    stager.put("b", "empty", META, 0, new ByteArrayInputStream(new byte[0]));
    assertThat(get(stager, "b", "k")).isEqualTo(second);
    journal.close();
    journal = WriteJournal.open(dir.resolve("journal"));
    WriteBackStager restarted = WriteBackStager.builder(stager.config(), journal).nodes(() -> nodes).origin(origin)
        .clock(() -> 2).writeIds(this::writeId).build();
    assertThat(get(restarted, "b", "k")).isEqualTo(second);
    assertThat(get(restarted, "b", "empty")).isEmpty();
    assertThat(journal.dirty()).hasSize(3);
  }

  @Test
  void aBodyShorterOrLongerThanDeclaredIsRefusedAndLeavesNothing() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    assertThatThrownBy(() -> stager.put("b", "k", META, 10, new ByteArrayInputStream(new byte[5])))
        .hasMessage("Cannot stage PUT of b/k: the body ended after 5 of the 10 bytes declared");
    assertThatThrownBy(() -> stager.put("b", "k", META, 10, new ByteArrayInputStream(new byte[11])))
        .hasMessage("Cannot stage PUT of b/k: the body is longer than the 10 bytes declared");
    assertNothingStaged(stager);
  }

  @Test
  void theFragmentsOfAWriteMarkedCleanJustBeforeACrashAreReleasedAgainAfterTheRestart() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    JournalRecord.Staged record = acknowledged(stager, "k", body(100_000));
    journal.append(new JournalRecord.Clean(record.identity())); // then the crash, before the release
    journal.close();
    journal = WriteJournal.open(dir.resolve("journal"));
    assertThat(journal.retiredAtReplay()).containsExactly(record);
    List<FragmentNode> live = new ArrayList<>(nodes.subList(0, 2));
    WriteBackStager restarted = WriteBackStager.builder(stager.config(), journal).nodes(() -> live).origin(origin)
        .clock(() -> 2).writeIds(this::writeId).build();

    assertThat(restarted.releaseAgain()).as("node-2 is not live").isOne();
    assertThat(nodes.get(2).local().list()).hasSize(1);
    live.add(nodes.get(2));
    assertThat(restarted.releaseAgain()).isZero();
    assertThat(usedBytes()).isZero();
  }

  @Test
  void theFragmentsARetirementCouldNotReleaseAreReleasedOnceTheirNodeIsInTheView() throws IOException {
    WriteBackStager stager = stager(3, 1 << 20, 3);
    JournalRecord.Staged record = acknowledged(stager, "k", body(100_000));
    List<FragmentNode> all = List.copyOf(nodes);
    nodes.retainAll(List.of(all.get(0))); // a coordinator back from a crash, before its view lists the others

    stager.retire(record); // delivered by the attempt before the crash: no fragment needed
    assertThat(all.get(0).local().list()).isEmpty();
    assertThat(all.get(1).local().list()).hasSize(1);
    assertThat(all.get(2).local().list()).hasSize(1);
    assertThat(stager.releaseAgain()).as("node-1 and node-2 are not in the view yet").isOne();
    nodes.add(all.get(1));
    assertThat(stager.releaseAgain()).as("node-2 is not in the view yet").isOne();
    assertThat(all.get(1).local().list()).isEmpty();
    nodes.add(all.get(2));
    assertThat(stager.releaseAgain()).isZero();
    assertThat(all.get(2).local().list()).isEmpty();
    assertThat(journal.dirty()).isEmpty();
  }

  @Test
  void theBuilderNamesARequiredOptionNotSet() throws IOException {
    WriteBackStager.Builder builder = WriteBackStager.builder(stager(3, 1 << 20, 3).config(), journal)
        .nodes(() -> nodes).clock(() -> 1).writeIds(this::writeId);
    assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build a write-back stager: no origin set");
    assertThat(builder.origin(origin).build().dirty("b", "k")).isEmpty();
  }

  @Test
  void aReplicationStalledOnAPeerHoldsUpOnlyItsOwnKeyAndTheAckWaitsForIt() throws Exception {
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch peer = new CountDownLatch(1);
    WriteBackStager stager = stager(3, 1 << 20, 3, record -> {
      if (record.identity().key().equals("slow")) {
        stalled.countDown();
        awaitUninterruptibly(peer);
      }
    });
    byte[] body = body(50_000);
    ExecutorService client = Executors.newSingleThreadExecutor();
    try {
      Future<StageOutcome> slow = client.submit(() -> stager.put("b", "slow", META, body.length,
          new ByteArrayInputStream(body)));
      assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        assertThat(stager.put("b", "fast", META, body.length, new ByteArrayInputStream(body)))
            .isInstanceOf(StageOutcome.Acknowledged.class);
        stager.delete("b", "fast");
        assertThat(journal.pending()).extracting(r -> r.identity().key()).containsExactly("fast", "fast");
      });
      assertThat(slow).isNotDone();
      assertThat(stager.dirty("b", "slow")).isEmpty();
      peer.countDown();
      assertThat(slow.get(10, TimeUnit.SECONDS)).isInstanceOf(StageOutcome.Acknowledged.class);
      assertThat(get(stager, "b", "slow")).isEqualTo(body);
      assertThat(journal.pending()).hasSize(3);
    } finally {
      peer.countDown();
      client.shutdownNow();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private WriteBackStager stager(int nodeCount, long ceiling, int w) throws IOException {
    return stager(nodeCount, ceiling, w, WriteJournal.Replication.NONE);
  }

  private WriteBackStager stager(int nodeCount, long ceiling, int w, WriteJournal.Replication replication)
      throws IOException {
    WriteBackConfig config = WriteBackConfig.builder().directory(dir).cellBytes(64 << 10).ackFragments(w)
        .fragmentCeilingBytes(ceiling).build();
    for (int i = 0; i < nodeCount; i++) {
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), ceiling)));
    }
    journal = WriteJournal.open(dir.resolve("journal"), replication);
    return WriteBackStager.builder(config, journal).nodes(() -> nodes).origin(origin).clock(() -> 1)
        .writeIds(this::writeId).fragmentIo(commits).build();
  }

  private static JournalRecord.Staged acknowledged(WriteBackStager stager, String key, byte[] body) throws IOException {
    return ((StageOutcome.Acknowledged) stager.put("b", key, META, body.length, new ByteArrayInputStream(body)))
        .record();
  }

  private String writeId() {
    return "w-" + writeIds.incrementAndGet();
  }

  /** The body, and after {@code after} bytes the directories of {@code lost} of the nodes vanish. */
  private InputStream failingNodesAfter(byte[] body, int after, int lost) {
    return new FilterInputStream(new ByteArrayInputStream(body)) {
      private int read;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (read < after && read + n >= after) {
          for (int i = 0; i < lost; i++) {
            TestingDirectories.delete(nodes.get(i).local().directory());
          }
        }
        read += Math.max(n, 0);
        return n;
      }
    };
  }

  /** The body went to the origin for the reason given, and write-back kept nothing of it. */
  private void assertWrittenThrough(WriteBackStager stager, StageOutcome outcome, byte[] body, String reason)
      throws IOException {
    assertThat(outcome).isInstanceOf(StageOutcome.WrittenThrough.class);
    assertThat(((StageOutcome.WrittenThrough) outcome).reason()).contains(reason);
    assertThat(origin.objects.get("b/k")).isEqualTo(body);
    assertNothingStaged(stager);
  }

  /** No journal record, no dirty entry, no fragment file and no reserved byte on any node. */
  private void assertNothingStaged(WriteBackStager stager) throws IOException {
    assertThat(journal.dirty()).isEmpty();
    assertThat(stager.dirty("b", "k")).isEmpty();
    assertThat(usedBytes()).isZero();
  }

  /** Bytes the stores count plus files left in their directories: zero when a write left nothing. */
  private long usedBytes() throws IOException {
    long used = 0;
    for (FragmentNode node : nodes) {
      used += node.local().usedBytes();
      if (Files.exists(node.local().directory())) {
        try (Stream<Path> files = Files.list(node.local().directory())) {
          used += files.count();
        }
      }
    }
    return used;
  }

  private static byte[] get(WriteBackStager stager, String bucket, String key) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(stager.get(bucket, key, out)).as("%s/%s is dirty", bucket, key).isTrue();
    return out.toByteArray();
  }

  private static byte[] body(int length) {
    byte[] body = new byte[length];
    new Random(length).nextBytes(body);
    return body;
  }
}
