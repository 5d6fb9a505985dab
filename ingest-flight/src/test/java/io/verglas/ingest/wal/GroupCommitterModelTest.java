package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.protocol.PutAck;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Random appends (several tables, repeated idempotency keys) against a store that fails at
 * random, through a random number of lanes, checked against what must hold whatever the
 * interleaving: every batch is acknowledged or failed; an acknowledged batch is in the WAL where
 * its ack says, with its bytes; each lane's sequences run 1, 2, 3, ...; the WAL holds exactly
 * the acknowledged batches, each key once per table, and all appends of one key share one ack.
 * The seed is printed; rerun one with {@code -Dverglas.test.seed=...}.
 */
class GroupCommitterModelTest {
  private static final String STREAM = "model";
  private static final WalLayout WAL = WalLayout.defaults();
  private static final IngestLayout LAYOUT = new IngestLayout(WAL);

  private record Append(SegmentTarget target, byte[] bytes, int rows, String key,
      CompletableFuture<PutAck> ack) {}

  @RepeatedTest(5)
  void randomAppendsAgainstAFailingStoreKeepTheWalConsistent() throws Exception {
    long seed = Long.getLong("verglas.test.seed", System.nanoTime());
    System.out.println("GroupCommitterModelTest seed " + seed);
    Random random = new Random(seed);
    TestingSegmentStore store = new TestingSegmentStore();
    int lanes = 1 + random.nextInt(4);
    WalWriterConfig config = new WalWriterConfig(50 + random.nextInt(400), Duration.ofHours(1),
        1 << 20, Duration.ofSeconds(10), new PutRetryPolicy(2, Duration.ZERO, Duration.ZERO),
        lanes, Duration.ofHours(1), 10_000);
    GroupCommitter committer = new GroupCommitter(STREAM, LAYOUT, store,
        new HybridLogicalClock(System::currentTimeMillis), config, new IngestMetrics(), "model",
        System::nanoTime, System::currentTimeMillis, duration -> { });
    committer.start();
    List<SegmentTarget> tables = List.of(
        new SegmentTarget("t-0", List.of("m", "a"), 0), new SegmentTarget("t-1", List.of("m", "b"), 0),
        new SegmentTarget("t-2", List.of("m", "c"), 0));
    List<Append> appends = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      if (random.nextInt(10) == 0) {
        store.failNextPuts(random.nextBoolean() ? TestingSegmentStore.Fault.FAIL_RETRYABLE
            : TestingSegmentStore.Fault.FAIL_PERMANENT, 1 + random.nextInt(2));
      }
      SegmentTarget target = tables.get(random.nextInt(tables.size()));
      String key = random.nextInt(3) == 0 ? "k" + random.nextInt(40) : null;
      byte[] bytes = new byte[1 + random.nextInt(60)];
      random.nextBytes(bytes);
      int rows = 1 + random.nextInt(9);
      appends.add(new Append(target, bytes, rows, key,
          committer.append(target, bytes, rows, key)));
    }
    committer.close();

    Map<String, WalSegment> wal = new HashMap<>();
    Map<String, Long> lastSequence = new HashMap<>();
    for (String objectKey : store.list(WAL.prefix())) {
      WalSegment segment = WalSegmentCodec.decode(store.objects().get(objectKey));
      String lane = segment.header().streamId();
      assertThat(segment.header().sequence()).as("seed %s: lane %s runs on", seed, lane)
          .isEqualTo(lastSequence.getOrDefault(lane, 0L) + 1);
      lastSequence.put(lane, segment.header().sequence());
      wal.put(lane + "/" + segment.header().sequence(), segment);
    }
    assertThat(lastSequence.size()).isLessThanOrEqualTo(lanes);

    Map<String, PutAck> ackOfKey = new HashMap<>();
    java.util.Set<String> ackedPositions = new java.util.HashSet<>();
    for (Append append : appends) {
      assertThat(append.ack()).as("seed %s: every append settles", seed).isDone();
      if (append.ack().isCompletedExceptionally()) {
        continue;
      }
      PutAck ack = append.ack().get(1, TimeUnit.SECONDS);
      WalSegment segment = wal.get(ack.stream() + "/" + ack.sequence());
      assertThat(segment).as("seed %s: segment of %s", seed, ack).isNotNull();
      assertThat(segment.header().tableUuid()).isEqualTo(append.target().tableUuid());
      WalBatch batch = segment.batches().get(ack.batch());
      assertThat(batch.hlc()).isEqualTo(ack.hlc());
      assertThat(batch.rowCount()).isEqualTo(ack.rows());
      assertThat(batch.idempotencyKey()).isEqualTo(append.key());
      if (append.key() == null || ackOfKey.get(append.target().tableUuid() + "/" + append.key()) == null) {
        assertThat(batch.arrowIpc()).as("seed %s", seed).isEqualTo(append.bytes());
      }
      if (append.key() != null) {
        PutAck first = ackOfKey.putIfAbsent(append.target().tableUuid() + "/" + append.key(), ack);
        assertThat(ack).as("seed %s: one ack per key", seed).isEqualTo(first == null ? ack : first);
      }
      ackedPositions.add(ack.stream() + "/" + ack.sequence() + "/" + ack.batch());
    }
    int walBatches = 0;
    Map<String, Integer> keyCopies = new HashMap<>();
    for (WalSegment segment : wal.values()) {
      for (int b = 0; b < segment.batches().size(); b++) {
        walBatches++;
        assertThat(ackedPositions).as("seed %s: only acknowledged batches are in the WAL", seed)
            .contains(segment.header().streamId() + "/" + segment.header().sequence() + "/" + b);
        String key = segment.batches().get(b).idempotencyKey();
        if (key != null) {
          keyCopies.merge(segment.header().tableUuid() + "/" + key, 1, Integer::sum);
        }
      }
    }
    assertThat(walBatches).isEqualTo(ackedPositions.size());
    assertThat(keyCopies.values()).as("seed %s: each key once per table", seed).allMatch(n -> n == 1);
  }
}
