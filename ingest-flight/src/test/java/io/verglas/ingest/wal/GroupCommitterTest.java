package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.protocol.PutAck;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitterTest {
  private static final String STREAM = "ingest-a";
  private static final WalLayout LAYOUT = WalLayout.defaults();
  private static final SegmentTarget EVENTS = new SegmentTarget("uuid-events", List.of("demo", "events"), 0);
  private static final SegmentTarget USERS = new SegmentTarget("uuid-users", List.of("demo", "users"), 0);
  private static final Duration LONG = Duration.ofHours(1);

  private final TestingSegmentStore store = new TestingSegmentStore();
  private final AtomicLong ticker = new AtomicLong();
  private final HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L);
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  private GroupCommitter committer;

  @AfterEach
  void closeCommitter() {
    store.open();
    if (committer != null) {
      committer.close();
    }
  }

  private GroupCommitter start(long flushBytes, Duration interval, long maxBuffered,
      Duration backpressure, int attempts) {
    WalWriterConfig config = new WalWriterConfig(flushBytes, interval, maxBuffered, backpressure,
        new PutRetryPolicy(attempts, Duration.ofMillis(100), Duration.ofSeconds(1)));
    committer = new GroupCommitter(STREAM, LAYOUT, store, clock, config, ticker::get,
        () -> 42L, sleeps::add);
    committer.start(1);
    return committer;
  }

  private GroupCommitter startSized(long flushBytes) {
    return start(flushBytes, LONG, 1 << 20, Duration.ofSeconds(5), 3);
  }

  private static PutAck ack(CompletableFuture<PutAck> future) throws Exception {
    return future.get(10, TimeUnit.SECONDS);
  }

  private WalSegment segment(long sequence) {
    byte[] bytes = store.objects().get(LAYOUT.segmentKey(STREAM, sequence));
    assertThat(bytes).as("segment %s", sequence).isNotNull();
    return WalSegmentCodec.decode(bytes);
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
    assertThat(store.objects()).hasSize(1);
  }

  @Test
  void writesASegmentOnceItsOldestBatchWaitedTheFlushInterval() throws Exception {
    start(1 << 20, Duration.ofMillis(200), 1 << 20, Duration.ofSeconds(5), 3);

    CompletableFuture<PutAck> first = committer.append(EVENTS, new byte[10], 1, null);
    ticker.addAndGet(Duration.ofMillis(150).toNanos());
    CompletableFuture<PutAck> second = committer.append(EVENTS, new byte[10], 1, null);
    committer.wakeFlusher();
    assertThat(first).isNotDone();

    ticker.addAndGet(Duration.ofMillis(50).toNanos());
    committer.wakeFlusher();

    assertThat(ack(first).sequence()).isEqualTo(1);
    assertThat(ack(second).sequence()).isEqualTo(1);
    assertThat(ack(second).batch()).isEqualTo(1);
  }

  @Test
  void keepsOneTablePerSegmentAndGapFreeSequencesAcrossTables() throws Exception {
    startSized(50);

    List<CompletableFuture<PutAck>> futures = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      futures.add(committer.append(i % 3 == 0 ? USERS : EVENTS, new byte[30], 1, null));
    }
    committer.close();

    List<String> keys = store.list(LAYOUT.streamPrefix(STREAM));
    for (int i = 0; i < keys.size(); i++) {
      assertThat(keys.get(i)).isEqualTo(LAYOUT.segmentKey(STREAM, i + 1));
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
    assertThat(store.putAttempts()).isEqualTo(3);
    assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
  }

  @Test
  void failsTheBatchesAfterTheLastAttemptAndReusesTheSequence() throws Exception {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.FAIL_RETRYABLE, 3);

    CompletableFuture<PutAck> failed = committer.append(EVENTS, new byte[10], 1, null);

    assertThatThrownBy(() -> ack(failed)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(WalUnavailableException.class)
        .hasMessageContaining("Cannot write WAL segment _wal/ingest-a/00000000000000000001.vwal "
            + "after 3 attempts")
        .hasMessageContaining("503 Slow Down");
    assertThat(ack(committer.append(EVENTS, new byte[10], 1, null)).sequence()).isEqualTo(1);
    assertThat(committer.status().bufferedBytes()).isZero();
  }

  @Test
  void doesNotRetryPermanentFailures() {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.FAIL_PERMANENT, 1);

    CompletableFuture<PutAck> failed = committer.append(EVENTS, new byte[10], 1, null);

    assertThatThrownBy(() -> ack(failed)).cause().hasMessageContaining("403 Access Denied");
    assertThat(store.putAttempts()).isEqualTo(1);
  }

  @Test
  void recognizesItsOwnWriteWhenTheAnswerWasLost() throws Exception {
    startSized(10);
    store.failNextPuts(TestingSegmentStore.Fault.LAND_THEN_FAIL, 1);

    PutAck ack = ack(committer.append(EVENTS, new byte[10], 1, null));

    assertThat(ack.sequence()).isEqualTo(1);
    assertThat(store.objects()).hasSize(1);
    assertThat(committer.status().state()).isEqualTo("running");
  }

  @Test
  void movesPastAFailedWriteThatLandedAfterAll() throws Exception {
    start(10, LONG, 1 << 20, Duration.ofSeconds(5), 1);
    store.failNextPuts(TestingSegmentStore.Fault.LAND_THEN_FAIL, 1);

    CompletableFuture<PutAck> reportedFailed = committer.append(EVENTS, new byte[10], 1, null);
    assertThatThrownBy(() -> ack(reportedFailed)).cause().isInstanceOf(WalUnavailableException.class);
    PutAck next = ack(committer.append(EVENTS, new byte[10], 1, null));

    assertThat(next.sequence()).isEqualTo(2);
    assertThat(store.objects()).hasSize(2);
    assertThat(committer.status().state()).isEqualTo("running");
  }

  @Test
  void aSegmentWrittenByAnotherProcessFencesTheWriter() throws Exception {
    startSized(10);
    store.putForeign(LAYOUT.segmentKey(STREAM, 1), new byte[] {1, 2, 3});

    CompletableFuture<PutAck> fenced = committer.append(EVENTS, new byte[10], 1, null);

    assertThatThrownBy(() -> ack(fenced)).cause().isInstanceOf(StreamFencedException.class)
        .hasMessageContaining("another writer already wrote it, so stream 'ingest-a' is fenced");
    assertThat(committer.status().state()).isEqualTo("fenced");
    assertThatThrownBy(() -> committer.append(EVENTS, new byte[10], 1, null))
        .isInstanceOf(StreamFencedException.class);
    assertThat(store.objects().get(LAYOUT.segmentKey(STREAM, 1))).containsExactly(1, 2, 3);
    assertThat(committer.status().bufferedBytes()).isZero();
  }

  @Test
  void blocksWritersWhileTheBufferIsFullThenGivesUp() throws Exception {
    start(50, LONG, 100, Duration.ofMillis(50), 3);
    store.close();

    CompletableFuture<PutAck> first = committer.append(EVENTS, new byte[80], 1, null);

    assertThatThrownBy(() -> committer.append(EVENTS, new byte[80], 1, null))
        .isInstanceOf(WalUnavailableException.class)
        .hasMessageContaining("the ingest buffer stayed full (80 of 100 bytes");
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
    long lastStamp = WalSegmentCodec.decode(store.objects().get(LAYOUT.segmentKey(STREAM, 3)))
        .header().hlcMax();
    store.putForeign(LAYOUT.streamPrefix("other") + "00000000000000000009.vwal", new byte[0]);

    HybridLogicalClock restarted = new HybridLogicalClock(() -> 0L);
    long next = StreamRecovery.nextSequence(store, LAYOUT, STREAM, restarted);

    assertThat(next).isEqualTo(4);
    assertThat(restarted.tick()).isGreaterThan(lastStamp);
    assertThat(StreamRecovery.nextSequence(store, LAYOUT, "fresh", restarted))
        .isEqualTo(StreamRecovery.FIRST_SEQUENCE);
  }
}
