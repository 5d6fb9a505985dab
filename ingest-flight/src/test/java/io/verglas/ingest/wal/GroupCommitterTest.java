package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.protocol.PutAck;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitterTest {
  private static final String STREAM = "ingest-a";
  private static final WalLayout WAL = WalLayout.defaults();
  private static final IngestLayout LAYOUT = new IngestLayout(WAL);
  private static final SegmentTarget EVENTS = new SegmentTarget("uuid-events", List.of("demo", "events"), 0);
  private static final SegmentTarget USERS = new SegmentTarget("uuid-users", List.of("demo", "users"), 0);
  private static final Duration LONG = Duration.ofHours(1);

  private final TestingSegmentStore store = new TestingSegmentStore();
  private final AtomicLong ticker = new AtomicLong();
  private final AtomicLong wallMillis = new AtomicLong(1_000_000L);
  private final HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L);
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  private final IngestMetrics metrics = new IngestMetrics();
  private final List<GroupCommitter> started = new ArrayList<>();
  private GroupCommitter committer;

  @AfterEach
  void closeCommitters() {
    store.open();
    started.forEach(GroupCommitter::close);
  }

  private GroupCommitter start(WalWriterConfig config) {
    store.setNowMillis(wallMillis.get());
    GroupCommitter writer = new GroupCommitter(STREAM, LAYOUT, store, clock, config, metrics,
        "test", ticker::get, wallMillis::get, sleeps::add);
    writer.start();
    started.add(writer);
    committer = writer;
    return writer;
  }

  private static WalWriterConfig config(long flushBytes, Duration interval, long maxBuffered,
      Duration backpressure, int attempts, int lanes) {
    return new WalWriterConfig(flushBytes, interval, maxBuffered, backpressure,
        new PutRetryPolicy(attempts, Duration.ofMillis(100), Duration.ofSeconds(1)), lanes,
        Duration.ofMinutes(10), 1_000);
  }

  private GroupCommitter start(long flushBytes, Duration interval, long maxBuffered,
      Duration backpressure, int attempts) {
    return start(config(flushBytes, interval, maxBuffered, backpressure, attempts, 1));
  }

  private GroupCommitter startSized(long flushBytes) {
    return start(flushBytes, LONG, 1 << 20, Duration.ofSeconds(5), 3);
  }

  private static PutAck ack(CompletableFuture<PutAck> future) throws Exception {
    return future.get(10, TimeUnit.SECONDS);
  }

  private WalSegment segment(String lane, long sequence) {
    byte[] bytes = store.objects().get(WAL.segmentKey(lane, sequence));
    assertThat(bytes).as("segment %s/%s", lane, sequence).isNotNull();
    return WalSegmentCodec.decode(bytes);
  }

  private WalSegment segment(long sequence) {
    return segment(STREAM, sequence);
  }

  @Test
  void writesOneSegmentWhenTheFlushSizeIsReached() throws Exception {
    startSized(100);

    List<CompletableFuture<PutAck>> futures = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      futures.add(committer.append(EVENTS, new byte[40], 10 + i, "key-" + i));
    }

    for (int i = 0; i < 3; i++) {
      PutAck ack = ack(futures.get(i));
      assertThat(ack.stream()).isEqualTo(STREAM);
      assertThat(ack.sequence()).isEqualTo(1);
      assertThat(ack.batch()).isEqualTo(i);
      assertThat(ack.rows()).isEqualTo(10 + i);
    }
    assertThat(ack(futures.get(0)).hlc()).isLessThan(ack(futures.get(1)).hlc());
    WalSegment segment = segment(1);
    assertThat(segment.header().tableUuid()).isEqualTo("uuid-events");
    assertThat(segment.header().tableName()).containsExactly("demo", "events");
    assertThat(segment.header().recordCount()).isEqualTo(33);
    assertThat(segment.header().hlcMin()).isEqualTo(ack(futures.get(0)).hlc());
    assertThat(segment.header().hlcMax()).isEqualTo(ack(futures.get(2)).hlc());
    assertThat(segment.batches()).extracting(b -> b.idempotencyKey())
        .containsExactly("key-0", "key-1", "key-2");
    assertThat(store.list(WAL.prefix())).hasSize(1);
    IngestMetrics.Snapshot snapshot = metrics.snapshot();
    assertThat(snapshot.segmentsWritten()).isEqualTo(1);
    assertThat(snapshot.batchesAcknowledged()).isEqualTo(3);
    assertThat(snapshot.rowsAcknowledged()).isEqualTo(33);
    assertThat(snapshot.ackLatency().count()).isEqualTo(3);
  }

  @Test
  void writesASegmentOnceItsOldestBatchWaitedTheFlushInterval() throws Exception {
    start(1 << 20, Duration.ofMillis(200), 1 << 20, Duration.ofSeconds(5), 3);

    CompletableFuture<PutAck> first = committer.append(EVENTS, new byte[10], 1, null);
    ticker.addAndGet(Duration.ofMillis(150).toNanos());
    CompletableFuture<PutAck> second = committer.append(EVENTS, new byte[10], 1, null);
    committer.wakeLanes();
    assertThat(first).isNotDone();

    ticker.addAndGet(Duration.ofMillis(50).toNanos());
    committer.wakeLanes();

    assertThat(ack(first).sequence()).isEqualTo(1);
    assertThat(ack(second).sequence()).isEqualTo(1);
    assertThat(ack(second).batch()).isEqualTo(1);
  }

  @Test
  void anIdleStoreWritesASegmentAfterTheLingerAndABusyOneAfterTheInterval() throws Exception {
    start(new WalWriterConfig(1 << 20, Duration.ofMillis(200), 1 << 20, Duration.ofSeconds(5),
        new PutRetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1)), 2,
        Duration.ofMinutes(10), 1_000, Duration.ofMillis(5)));

    CompletableFuture<PutAck> first = committer.append(EVENTS, new byte[10], 1, null);
    ticker.addAndGet(Duration.ofMillis(5).toNanos());
    committer.wakeLanes();
    assertThat(ack(first).sequence()).isEqualTo(1);

    store.close(); // the next PUT hangs: one lane is busy
    CompletableFuture<PutAck> busy = committer.append(EVENTS, new byte[10], 1, null);
    ticker.addAndGet(Duration.ofMillis(5).toNanos());
    committer.wakeLanes();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.waitingPuts() < 1) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(1);
    }
    CompletableFuture<PutAck> waits = committer.append(EVENTS, new byte[10], 1, null);
    ticker.addAndGet(Duration.ofMillis(50).toNanos());
    committer.wakeLanes();
    Thread.sleep(50);
    assertThat(store.waitingPuts()).as("a lane is busy: the open segment waits the interval")
        .isEqualTo(1);
    ticker.addAndGet(Duration.ofMillis(150).toNanos());
    committer.wakeLanes();
    while (store.waitingPuts() < 2) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(1);
    }
    store.open();
    assertThat(ack(busy).batch()).isZero();
    assertThat(ack(waits).batch()).isZero();
  }

  @Test
  void keepsOneTablePerSegmentAndGapFreeSequencesAcrossTables() throws Exception {
    startSized(50);

    List<CompletableFuture<PutAck>> futures = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      futures.add(committer.append(i % 3 == 0 ? USERS : EVENTS, new byte[30], 1, null));
    }
    committer.close();

    List<String> keys = store.list(WAL.streamPrefix(STREAM));
    for (int i = 0; i < keys.size(); i++) {
      assertThat(keys.get(i)).isEqualTo(WAL.segmentKey(STREAM, i + 1));
    }
    long rows = 0;
    for (int i = 1; i <= keys.size(); i++) {
      WalSegment segment = segment(i);
      assertThat(segment.header().sequence()).isEqualTo(i);
      rows += segment.header().recordCount();
    }
    assertThat(rows).isEqualTo(12);
    for (CompletableFuture<PutAck> future : futures) {
      assertThat(future).isCompleted();
    }
  }

  @Test
  void lanesWriteSegmentsConcurrentlyEachInSequenceOrder() throws Exception {
    start(config(100, LONG, 1 << 20, Duration.ofSeconds(5), 3, 4));
    store.close();

    List<CompletableFuture<PutAck>> futures = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      futures.add(committer.append(i % 2 == 0 ? EVENTS : USERS, new byte[40], 1, null));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.waitingPuts() < 4) {
      assertThat(System.nanoTime()).as("four PUTs in flight at once").isLessThan(deadline);
      Thread.sleep(1);
    }
    store.open();
    committer.close();

    Map<String, List<Long>> sequencesByLane = new HashMap<>();
    for (String key : store.list(WAL.prefix())) {
      WalLayout.SegmentName name = WAL.parse(key).orElseThrow();
      sequencesByLane.computeIfAbsent(name.streamId(), s -> new ArrayList<>()).add(name.sequence());
    }
    assertThat(sequencesByLane.keySet()).containsExactlyInAnyOrder(STREAM, STREAM + ".1",
        STREAM + ".2", STREAM + ".3");
    long batches = 0;
    for (Map.Entry<String, List<Long>> lane : sequencesByLane.entrySet()) {
      List<Long> sequences = lane.getValue();
      Map<String, Long> previousHlc = new HashMap<>();
      for (int i = 0; i < sequences.size(); i++) {
        assertThat(sequences.get(i)).isEqualTo(i + 1L);
        WalSegment segment = segment(lane.getKey(), sequences.get(i));
        assertThat(segment.header().streamId()).isEqualTo(lane.getKey());
        assertThat(segment.header().hlcMin()).as("a table's stamps rise along a lane")
            .isGreaterThan(previousHlc.getOrDefault(segment.header().tableUuid(), Long.MIN_VALUE));
        previousHlc.put(segment.header().tableUuid(), segment.header().hlcMax());
        batches += segment.batches().size();
      }
    }
    assertThat(batches).isEqualTo(200);
    long previous = Long.MIN_VALUE;
    for (CompletableFuture<PutAck> future : futures) {
      PutAck ack = ack(future);
      WalBatch batch = segment(ack.stream(), ack.sequence()).batches().get(ack.batch());
      assertThat(batch.hlc()).isEqualTo(ack.hlc());
      assertThat(ack.hlc()).as("stamps follow the order of appends").isGreaterThan(previous);
      previous = ack.hlc();
    }
  }

  @Test
  void sealsTheOpenSegmentWhenTheSchemaChanges() throws Exception {
    startSized(1 << 20);
    SegmentTarget evolved = new SegmentTarget("uuid-events", List.of("demo", "events"), 1);

    CompletableFuture<PutAck> old = committer.append(EVENTS, new byte[10], 1, null);
    CompletableFuture<PutAck> newer = committer.append(evolved, new byte[10], 1, null);
    committer.close();

    assertThat(ack(old).sequence()).isEqualTo(1);
    assertThat(ack(newer).sequence()).isEqualTo(2);
    assertThat(segment(1).header().schemaId()).isEqualTo(0);
    assertThat(segment(2).header().schemaId()).isEqualTo(1);
  }

  @Test
  void retriesRetryableFailuresWithExponentialBackoff() throws Exception {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.FAIL_RETRYABLE, 2);

    PutAck ack = ack(committer.append(EVENTS, new byte[10], 1, null));

    assertThat(ack.sequence()).isEqualTo(1);
    assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    assertThat(metrics.snapshot().putRetries()).isEqualTo(2);
  }

  @Test
  void failsTheBatchesAfterTheLastAttemptAndReusesTheSequence() throws Exception {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.FAIL_RETRYABLE, 3);

    CompletableFuture<PutAck> failed = committer.append(EVENTS, new byte[10], 1, null);

    assertThatThrownBy(() -> ack(failed)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(WalUnavailableException.class)
        .hasMessageContaining("Cannot write WAL segment _wal/ingest-a/00000000000000000001.vwal: ")
        .hasMessageContaining("503 Slow Down (3 attempts)");
    assertThat(ack(committer.append(EVENTS, new byte[10], 1, null)).sequence()).isEqualTo(1);
    assertThat(committer.status().bufferedBytes()).isZero();
    assertThat(metrics.snapshot().putFailures()).isEqualTo(1);
    assertThat(metrics.snapshot().batchesFailed()).isEqualTo(1);
  }

  @Test
  void doesNotRetryPermanentFailures() {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.FAIL_PERMANENT, 1);
    int before = store.putAttempts();

    CompletableFuture<PutAck> failed = committer.append(EVENTS, new byte[10], 1, null);

    assertThatThrownBy(() -> ack(failed)).cause().hasMessageContaining("403 Access Denied");
    assertThat(store.putAttempts() - before).isEqualTo(1);
  }

  @Test
  void recognizesItsOwnWriteWhenTheAnswerWasLost() throws Exception {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.LAND_THEN_FAIL, 1);

    PutAck ack = ack(committer.append(EVENTS, new byte[10], 1, null));

    assertThat(ack.sequence()).isEqualTo(1);
    assertThat(store.list(WAL.prefix())).hasSize(1);
    assertThat(committer.status().state()).isEqualTo("running");
  }

  @Test
  void movesPastAFailedWriteThatLandedAfterAllAndRemembersItsKey() throws Exception {
    start(10, LONG, 1 << 20, Duration.ofSeconds(5), 1);
    store.failNextPuts(TestingSegmentStore.Fault.LAND_THEN_FAIL, 1);

    CompletableFuture<PutAck> reportedFailed = committer.append(EVENTS, new byte[10], 1, "k-1");
    assertThatThrownBy(() -> ack(reportedFailed)).cause().isInstanceOf(WalUnavailableException.class);
    PutAck next = ack(committer.append(EVENTS, new byte[10], 1, null));
    PutAck retried = ack(committer.append(EVENTS, new byte[10], 1, "k-1"));

    assertThat(next.sequence()).isEqualTo(2);
    assertThat(retried.sequence()).as("the retry is answered by the batch that landed").isEqualTo(1);
    assertThat(store.list(WAL.prefix())).hasSize(2);
    assertThat(committer.status().state()).isEqualTo("running");
  }

  @Test
  void movesPastASegmentAnOlderProcessOfTheStreamWrote() throws Exception {
    startSized(10);
    byte[] foreign = WalSegmentCodec.encode(new WalSegmentHeader("uuid-events",
        List.of("demo", "events"), 0, STREAM, 1, 1, 5, 5, 1), List.of(new WalBatch(5, 1, "old-key",
        new byte[] {7})));
    store.putForeign(WAL.segmentKey(STREAM, 1), foreign);

    PutAck ack = ack(committer.append(EVENTS, new byte[10], 1, null));
    PutAck duplicate = ack(committer.append(EVENTS, new byte[10], 1, "old-key"));

    assertThat(ack.sequence()).isEqualTo(2);
    assertThat(duplicate.sequence()).as("keys of the foreign segment are known").isEqualTo(1);
    assertThat(store.objects().get(WAL.segmentKey(STREAM, 1))).isEqualTo(foreign);
    assertThat(committer.status().state()).isEqualTo("running");
  }

  @Test
  void aNewerClaimFencesTheWriterBeforeItAcknowledges() throws Exception {
    startSized(10);
    assertThat(ack(committer.append(EVENTS, new byte[10], 1, null)).sequence()).isEqualTo(1);
    store.putForeign(LAYOUT.claimKey(STREAM, 2), StreamClaim.toBytes(
        new StreamClaim.Claim(2, "newer", 0, 1)));

    CompletableFuture<PutAck> fenced = committer.append(EVENTS, new byte[10], 1, null);

    assertThatThrownBy(() -> ack(fenced)).cause().isInstanceOf(StreamFencedException.class)
        .hasMessage("Cannot acknowledge WAL segment _wal/ingest-a/00000000000000000002.vwal: "
            + "another process claimed stream 'ingest-a' (epoch 2), so this ingest process is "
            + "fenced and accepts no more writes");
    assertThat(committer.status().state()).isEqualTo("fenced");
    assertThatThrownBy(() -> committer.append(EVENTS, new byte[10], 1, null))
        .isInstanceOf(StreamFencedException.class);
    assertThat(committer.status().bufferedBytes()).isZero();
  }

  @Test
  void aRestartedWriterClaimsTheNextEpochAndTheOldOneIsFenced() throws Exception {
    GroupCommitter first = startSized(10);
    assertThat(ack(first.append(EVENTS, new byte[10], 1, null)).sequence()).isEqualTo(1);

    GroupCommitter second = startSized(10);

    assertThat(second.status().epoch()).isEqualTo(first.status().epoch() + 1);
    assertThatThrownBy(() -> ack(first.append(EVENTS, new byte[10], 1, null)))
        .cause().isInstanceOf(StreamFencedException.class);
    // The old writer's segment 2 is durable though unacknowledged: the new one moves past it.
    PutAck ack = ack(second.append(EVENTS, new byte[10], 1, null));
    assertThat(ack.sequence()).isEqualTo(3);
    assertThat(second.status().state()).isEqualTo("running");
  }

  @Test
  void aClaimWhoseAnswerWasLostIsStillClaimed() throws Exception {
    // The first attempt landed but its answer was lost: the retry finds its own bytes.
    store.failNextPuts(TestingSegmentStore.Fault.LAND_THEN_EXISTS, 1);
    assertThat(startSized(10).status().epoch()).isEqualTo(1);

    // A claim PUT that fails after landing is retried; the orphaned epoch is passed over.
    store.failNextPuts(TestingSegmentStore.Fault.LAND_THEN_FAIL, 1);
    GroupCommitter next = startSized(10);
    assertThat(next.status().epoch()).isEqualTo(3);
    assertThat(store.objects()).containsKey(LAYOUT.claimKey(STREAM, 2));
    assertThat(ack(next.append(EVENTS, new byte[10], 1, null)).sequence()).isEqualTo(1);
  }

  @Test
  void aRetriedKeyIsWrittenOnceAndAnsweredWithTheFirstAck() throws Exception {
    startSized(1 << 20);

    CompletableFuture<PutAck> first = committer.append(EVENTS, new byte[10], 3, "order-1");
    CompletableFuture<PutAck> whileInFlight = committer.append(EVENTS, new byte[10], 3, "order-1");
    CompletableFuture<PutAck> otherTable = committer.append(USERS, new byte[10], 3, "order-1");
    committer.close();

    assertThat(ack(whileInFlight)).isEqualTo(ack(first));
    assertThat(ack(otherTable)).isNotEqualTo(ack(first));
    assertThat(committer.duplicateOf(EVENTS, "order-1")).isPresent();
    assertThat(segment(ack(first).sequence()).batches()).hasSize(1);
    assertThat(metrics.snapshot().duplicatesAbsorbed()).isEqualTo(1);
  }

  @Test
  void aFailedBatchsKeyIsForgottenSoItsRetryIsWritten() throws Exception {
    start(10, LONG, 1 << 20, Duration.ofSeconds(5), 1);
    store.failNextPuts(TestingSegmentStore.Fault.FAIL_RETRYABLE, 1);

    CompletableFuture<PutAck> failed = committer.append(EVENTS, new byte[10], 1, "k");
    assertThatThrownBy(() -> ack(failed)).cause().isInstanceOf(WalUnavailableException.class);
    PutAck retried = ack(committer.append(EVENTS, new byte[10], 1, "k"));

    assertThat(retried.sequence()).isEqualTo(1);
    assertThat(segment(1).batches()).extracting(WalBatch::idempotencyKey).containsExactly("k");
  }

  @Test
  void keysSurviveARestartThroughJournalsAndTheLastSegment() throws Exception {
    GroupCommitter first = startSized(10);
    PutAck journaled = ack(first.append(EVENTS, new byte[10], 1, "journaled"));
    PutAck unjournaled = ack(first.append(EVENTS, new byte[10], 1, "in-last-segment"));
    first.close();
    // The process died after its last PUT, before journaling it; and the materializer
    // committed and deleted the first segment.
    store.delete(LAYOUT.journalKey(STREAM, STREAM, unjournaled.sequence()));
    store.delete(WAL.segmentKey(STREAM, journaled.sequence()));
    assertThat(store.objects()).containsKey(LAYOUT.journalKey(STREAM, STREAM, journaled.sequence()));

    GroupCommitter second = startSized(10);

    assertThat(ack(second.append(EVENTS, new byte[10], 1, "journaled"))).isEqualTo(journaled);
    assertThat(ack(second.append(EVENTS, new byte[10], 1, "in-last-segment"))).isEqualTo(unjournaled);
    assertThat(ack(second.append(EVENTS, new byte[10], 1, "new")).sequence()).isEqualTo(3);
  }

  @Test
  void keysAreForgottenAfterTheWindowAndTheirJournalsDeleted() throws Exception {
    GroupCommitter first = startSized(10);
    PutAck old = ack(first.append(EVENTS, new byte[10], 1, "old"));
    String journal = LAYOUT.journalKey(STREAM, STREAM, old.sequence());
    assertThat(store.objects()).containsKey(journal);

    wallMillis.addAndGet(Duration.ofMinutes(10).toMillis() + 1);
    store.setNowMillis(wallMillis.get());
    PutAck again = ack(first.append(EVENTS, new byte[10], 1, "old"));
    assertThat(again.sequence()).as("outside the window the key is new again").isEqualTo(2);

    wallMillis.addAndGet(Duration.ofMinutes(2).toMillis());
    assertThat(first.expireKeyJournals()).isEqualTo(1);
    assertThat(store.objects()).doesNotContainKey(journal)
        .containsKey(LAYOUT.journalKey(STREAM, STREAM, again.sequence()));
  }

  @Test
  void blocksWritersWhileTheBufferIsFullThenGivesUp() throws Exception {
    start(50, LONG, 100, Duration.ofMillis(50), 3);
    store.close();

    CompletableFuture<PutAck> first = committer.append(EVENTS, new byte[80], 1, null);

    assertThatThrownBy(() -> committer.append(EVENTS, new byte[80], 1, null))
        .isInstanceOf(WalUnavailableException.class)
        .hasMessageContaining("the ingest buffer stayed full (80 of 100 bytes");
    assertThat(metrics.snapshot().bufferedBytes()).isEqualTo(80);
    store.open();
    assertThat(ack(first).sequence()).isEqualTo(1);
    assertThat(ack(committer.append(EVENTS, new byte[80], 1, null)).sequence()).isEqualTo(2);
  }

  @Test
  void closeWritesPendingBatchesThenRefusesMore() throws Exception {
    startSized(1 << 20);

    CompletableFuture<PutAck> pending = committer.append(EVENTS, new byte[10], 5, null);
    committer.close();

    assertThat(pending).isCompleted();
    assertThat(ack(pending).rows()).isEqualTo(5);
    assertThatThrownBy(() -> committer.append(EVENTS, new byte[10], 1, null))
        .isInstanceOf(WalUnavailableException.class).hasMessageContaining("shutting down");
    committer.close();
  }

  @Test
  void recoveryContinuesAfterTheHighestSegmentAndItsClock() throws Exception {
    startSized(10);
    for (int i = 0; i < 3; i++) {
      ack(committer.append(EVENTS, new byte[10], 1, null));
    }
    committer.close();
    long lastStamp = segment(3).header().hlcMax();
    store.putForeign(WAL.streamPrefix("other") + "00000000000000000009.vwal", new byte[0]);

    HybridLogicalClock restarted = new HybridLogicalClock(() -> 0L);
    long next = StreamRecovery.nextSequence(store, WAL, STREAM, restarted);

    assertThat(next).isEqualTo(4);
    assertThat(restarted.tick()).isGreaterThan(lastStamp);
    assertThat(StreamRecovery.nextSequence(store, WAL, "fresh", restarted))
        .isEqualTo(StreamRecovery.FIRST_SEQUENCE);
  }

  @Test
  void recoveryNeverReusesSequencesCoveredByTheHighWaterMark() throws Exception {
    startSized(10);
    ack(committer.append(EVENTS, new byte[10], 1, null));
    committer.close();
    // The materializer committed segment 1, raised the mark and deleted it.
    store.putForeign(WAL.highWaterKey(STREAM), io.verglas.wal.StreamHighWater.encode(1));
    store.delete(WAL.segmentKey(STREAM, 1));

    PutAck ack = ack(startSized(10).append(EVENTS, new byte[10], 1, null));

    assertThat(ack.sequence()).isEqualTo(2);
  }
}
