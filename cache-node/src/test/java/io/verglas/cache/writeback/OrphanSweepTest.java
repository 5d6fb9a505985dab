package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Orphan fragments over three stores: those of a coordinator that died before its record was
 * journaled are removed once older than the grace period; those of journaled writes and of a
 * write still being staged (fragments committed, record not journaled yet) never are.
 */
class OrphanSweepTest {
  @TempDir Path dir;
  private final List<FragmentNode> nodes = new ArrayList<>();
  private final List<WriteJournal> journals = new ArrayList<>();
  private final ExecutorService client = Executors.newSingleThreadExecutor();
  private final CountDownLatch peer = new CountDownLatch(1);

  @AfterEach
  void close() throws IOException {
    peer.countDown();
    client.shutdownNow();
    for (WriteJournal journal : journals) {
      journal.close();
    }
  }

  @Test
  void fragmentsNoRecordNamesAreRemovedAfterTheGracePeriodAndAWriteBeingStagedIsKept() throws Exception {
    for (int i = 0; i < 3; i++) {
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("node-" + i), 1 << 22)));
    }
    CountDownLatch stalled = new CountDownLatch(1);
    WriteBackStager stager = stager("journal", record -> {
      if (record.identity().key().equals("staging")) {
        stalled.countDown();
        try {
          peer.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    byte[] kept = body(100_000, 1);
    byte[] staging = body(80_000, 2);
    stager.put("b", "kept", Map.of(), kept.length, new ByteArrayInputStream(kept));
    stager("dead-journal", r -> {}).put("b", "orphan", Map.of(), 90_000, new ByteArrayInputStream(body(90_000, 3)));
    Files.delete(dir.resolve("dead-journal")); // the other coordinator's record never reached anyone
    Future<StageOutcome> stagingPut = client.submit(() -> stager.put("b", "staging", Map.of(), staging.length,
        new ByteArrayInputStream(staging)));
    assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(fragmentFiles()).isEqualTo(9);
    OrphanSweep sweep = new OrphanSweep(() -> nodes, stager::liveWrites, System::currentTimeMillis);

    assertThat(sweep.runOnce(Duration.ofMinutes(10))).as("all younger than the grace period").isZero();
    assertThat(sweep.runOnce(Duration.ZERO)).as("the dead coordinator's three").isEqualTo(3);
    assertThat(fragmentFiles()).isEqualTo(6);
    assertThat(sweep.runOnce(Duration.ZERO)).isZero();

    peer.countDown();
    assertThat(stagingPut.get(10, TimeUnit.SECONDS)).isInstanceOf(StageOutcome.Acknowledged.class);
    assertThat(get(stager, "staging")).isEqualTo(staging);
    assertThat(get(stager, "kept")).isEqualTo(kept);
    assertThat(nodes.stream().mapToLong(n -> n.local().usedBytes()).sum())
        .as("the removed fragments' space is back").isEqualTo(usedBytesOnDisk());
  }

  private WriteBackStager stager(String journalName, WriteJournal.Replication replication) throws IOException {
    WriteBackConfig config = WriteBackConfig.builder().directory(dir).cellBytes(32 << 10).build();
    WriteJournal journal = WriteJournal.open(dir.resolve(journalName), replication);
    journals.add(journal);
    Random ids = new Random(journalName.hashCode());
    return WriteBackStager.builder(config, journal).nodes(() -> nodes).origin(new TestingOrigin()).clock(() -> 1)
        .writeIds(() -> "w-" + ids.nextLong()).build();
  }

  private long fragmentFiles() throws IOException {
    long count = 0;
    for (FragmentNode node : nodes) {
      try (Stream<Path> files = Files.list(node.local().directory())) {
        count += files.filter(f -> f.toString().endsWith(".frag")).count();
      }
    }
    return count;
  }

  private long usedBytesOnDisk() throws IOException {
    long bytes = 0;
    for (FragmentNode node : nodes) {
      try (Stream<Path> files = Files.list(node.local().directory())) {
        for (Path f : (Iterable<Path>) files::iterator) {
          bytes += Files.size(f);
        }
      }
    }
    return bytes;
  }

  private static byte[] get(WriteBackStager stager, String key) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(stager.get("b", key, out)).isTrue();
    return out.toByteArray();
  }

  private static byte[] body(int length, long seed) {
    byte[] body = new byte[length];
    new Random(seed).nextBytes(body);
    return body;
  }
}
