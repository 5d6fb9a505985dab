package io.verglas.ingest.wal;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.protocol.PutAck;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the batches of one WAL stream into segments on the object store, many batches per
 * PUT, and completes each batch's future only once its segment is durable.
 *
 * <p>Design. Batches from every concurrent caller gather per table in an <em>open</em> segment.
 * A segment is <em>sealed</em> when its bytes reach {@code flushBytes} (by the appending
 * caller) or when its first batch has waited {@code flushInterval} (by the flusher). One
 * flusher thread per stream takes sealed segments in order, gives each the next sequence
 * number and PUTs it with {@code If-None-Match: *}; so a stream's segments are written one after
 * another, their sequence numbers are gap-free, and a segment key is written at most once.
 *
 * <p>Clock. A batch is stamped with the hybrid logical clock when it enters its open segment.
 * Within a table that is also the order of the segments and of the acknowledgements, so a
 * later-acknowledged batch never carries a smaller stamp than an earlier one of the same stream
 * and table; across streams the stamps order last-writer-wins (ties broken as in
 * {@code WalPosition}). A table's open segment is sealed early when a batch validated against
 * another schema id arrives, keeping one schema per segment.
 *
 * <p>Failures. A PUT is retried with backoff ({@link PutRetryPolicy}); after the last attempt
 * its batches fail with {@link WalUnavailableException} and the sequence number is reused for
 * the next segment, because the failed PUT was never acknowledged. If that failed PUT did land
 * after all, the next PUT finds its exact bytes under the key and moves on to the following
 * number. Any other object under our next key means another process writes this stream: the
 * writer is fenced, fails everything it holds with {@link StreamFencedException} and accepts
 * nothing more.
 *
 * <p>Memory. Accepted-but-not-durable batches are bounded by {@code maxBufferedBytes}
 * (encoded bytes); {@link #append} blocks while the budget is exhausted, up to
 * {@code backpressureTimeout}, then fails with {@link WalUnavailableException}.
 */
public final class GroupCommitter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommitter.class);
  private static final long IDLE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Pauses between PUT attempts; tests pass one that does not sleep. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private enum State { NEW, RUNNING, CLOSING, CLOSED, FENCED }

  private enum Outcome { WRITTEN, EARLIER_SEGMENT_LANDED, FENCED, FAILED }

  /** What health checks report. */
  public record Status(String state, long nextSequence, long bufferedBytes) {}

  private final String streamId;
  private final WalLayout layout;
  private final SegmentStore store;
  private final HybridLogicalClock clock;
  private final WalWriterConfig config;
  private final LongSupplier nanoTime;
  private final LongSupplier wallMillis;
  private final Sleeper sleeper;
  private final ByteBudget budget;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  // Guarded by lock. Open segments by table uuid, in the order they were opened.
  private final Map<String, PendingSegment> open = new LinkedHashMap<>();
  private final ArrayDeque<PendingSegment> sealed = new ArrayDeque<>();
  private State state = State.NEW;
  private String fencedReason;
  private Thread flusher;

  // Only the flusher thread writes these; volatile so status() may read them.
  private volatile long nextSequence;
  private byte[] unacknowledgedSegment;
  private SegmentStoreException lastFailure;

  public GroupCommitter(String streamId, WalLayout layout, SegmentStore store,
      HybridLogicalClock clock, WalWriterConfig config) {
    this(streamId, layout, store, clock, config, System::nanoTime, System::currentTimeMillis,
        duration -> TimeUnit.NANOSECONDS.sleep(duration.toNanos()));
  }

  GroupCommitter(String streamId, WalLayout layout, SegmentStore store, HybridLogicalClock clock,
      WalWriterConfig config, LongSupplier nanoTime, LongSupplier wallMillis, Sleeper sleeper) {
    this.streamId = WalLayout.checkStreamId(streamId);
    this.layout = Objects.requireNonNull(layout, "layout");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.config = Objects.requireNonNull(config, "config");
    this.nanoTime = nanoTime;
    this.wallMillis = wallMillis;
    this.sleeper = sleeper;
    this.budget = new ByteBudget(config.maxBufferedBytes());
  }

  public String streamId() {
    return streamId;
  }

  /** Starts the flusher; the first segment written gets {@code firstSequence}. */
  public void start(long firstSequence) {
    if (firstSequence < 0) {
      throw new IllegalArgumentException("Invalid first sequence: " + firstSequence);
    }
    lock.lock();
    try {
      if (state != State.NEW) {
        throw new IllegalStateException("Cannot start WAL writer for stream " + streamId
            + ": it is " + state.name().toLowerCase(Locale.ROOT));
      }
      nextSequence = firstSequence;
      state = State.RUNNING;
      flusher = new Thread(this::runFlusher, "verglas-wal-" + streamId);
      flusher.setDaemon(true);
      flusher.start();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Accepts one encoded batch for the target's next segment.
   *
   * @return a future completed with the batch's acknowledgement once its segment is durable,
   *     or exceptionally with a {@link WalUnavailableException}
   * @throws WalUnavailableException if the writer is not running, is fenced, or the buffer
   *     stayed full for the backpressure timeout
   * @throws IllegalArgumentException if the idempotency key is too long
   */
  public CompletableFuture<PutAck> append(SegmentTarget target, byte[] arrowIpc, int rowCount,
      String idempotencyKey) {
    if (idempotencyKey != null && idempotencyKey.length() > WalSegmentCodec.MAX_KEY_LENGTH) {
      // Checked here: the segment encoder would otherwise fail the whole segment.
      throw new IllegalArgumentException("Invalid idempotency key: longer than "
          + WalSegmentCodec.MAX_KEY_LENGTH + " characters");
    }
    lock.lock();
    try {
      checkAccepting(target);
    } finally {
      lock.unlock();
    }
    long charge = budget.charge(arrowIpc.length);
    acquire(target, arrowIpc.length);
    lock.lock();
    try {
      checkAccepting(target);
      PendingSegment pending = open.get(target.tableUuid());
      if (pending != null && !pending.target().equals(target)) {
        seal(pending);
        pending = null;
      }
      if (pending == null) {
        pending = new PendingSegment(target, nanoTime.getAsLong());
        open.put(target.tableUuid(), pending);
        work.signalAll();
      }
      WalBatch batch = new WalBatch(clock.tick(), rowCount, idempotencyKey, arrowIpc);
      CompletableFuture<PutAck> future = pending.add(batch, charge);
      if (pending.bytes() >= config.flushBytes()) {
        seal(pending);
      }
      return future;
    } catch (RuntimeException e) {
      budget.release(charge);
      throw e;
    } finally {
      lock.unlock();
    }
  }

  /** Makes the flusher re-check its deadlines; tests call it after advancing their ticker. */
  void wakeFlusher() {
    lock.lock();
    try {
      work.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public Status status() {
    lock.lock();
    try {
      return new Status(state.name().toLowerCase(Locale.ROOT), nextSequence, budget.used());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops accepting batches, writes every pending segment, and stops the flusher. Idempotent.
   * Batches that cannot be written fail as usual (after the PUT retries).
   */
  @Override
  public void close() {
    Thread toJoin;
    lock.lock();
    try {
      if (state == State.NEW) {
        state = State.CLOSED;
        return;
      }
      if (state == State.RUNNING) {
        state = State.CLOSING;
        work.signalAll();
      }
      toJoin = flusher;
    } finally {
      lock.unlock();
    }
    try {
      toJoin.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void acquire(SegmentTarget target, long bytes) {
    boolean acquired;
    try {
      acquired = budget.acquire(bytes, config.backpressureTimeout().toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WalUnavailableException("Cannot append batch to " + target.displayName()
          + ": interrupted while waiting for ingest buffer space", e);
    }
    if (!acquired) {
      throw new WalUnavailableException("Cannot append batch to " + target.displayName()
          + ": the ingest buffer stayed full (" + budget.used() + " of " + budget.capacity()
          + " bytes awaiting durable writes) for " + config.backpressureTimeout()
          + "; the object store is slow or unavailable, retry later");
    }
  }

  private void checkAccepting(SegmentTarget target) {
    switch (state) {
      case RUNNING:
        return;
      case FENCED:
        throw new StreamFencedException(fencedReason);
      case NEW:
        throw new WalUnavailableException("Cannot append batch to " + target.displayName()
            + ": WAL writer for stream " + streamId + " is not started");
      default:
        throw new WalUnavailableException("Cannot append batch to " + target.displayName()
            + ": WAL writer for stream " + streamId + " is shutting down");
    }
  }

  /** Moves an open segment to the write queue. Caller holds the lock. */
  private void seal(PendingSegment pending) {
    open.remove(pending.target().tableUuid(), pending);
    sealed.add(pending);
    work.signalAll();
  }

  private void runFlusher() {
    try {
      PendingSegment next;
      while ((next = nextSegment()) != null) {
        write(next);
      }
    } catch (Throwable t) {
      // A bug, not an object-store failure (those are handled per segment): never leave callers
      // waiting for futures that nobody completes.
      LOG.error("WAL writer for stream {} stopped unexpectedly", streamId, t);
      stopWith(State.CLOSED, new WalUnavailableException("WAL writer for stream " + streamId
          + " stopped unexpectedly: " + t, t), null);
    }
  }

  /** Blocks until a segment is due; null once closed and drained, or fenced. */
  private PendingSegment nextSegment() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        if (state == State.FENCED || state == State.CLOSED) {
          return null;
        }
        long now = nanoTime.getAsLong();
        sealDue(now, state == State.CLOSING);
        PendingSegment head = sealed.poll();
        if (head != null) {
          return head;
        }
        if (state == State.CLOSING) {
          state = State.CLOSED;
          return null;
        }
        long wait = open.isEmpty() ? IDLE_WAIT_NANOS : oldestOpened() + interval() - now;
        work.awaitNanos(Math.max(1, wait));
      }
    } finally {
      lock.unlock();
    }
  }

  private long interval() {
    return config.flushInterval().toNanos();
  }

  /** When the oldest open segment got its first batch. Caller holds the lock; open is not empty. */
  private long oldestOpened() {
    return open.values().iterator().next().openedNanos();
  }

  /** Seals the open segments whose first batch waited the flush interval (all if closing). */
  private void sealDue(long now, boolean all) {
    long interval = interval();
    Iterator<PendingSegment> it = open.values().iterator();
    while (it.hasNext()) {
      PendingSegment pending = it.next();
      // Open segments iterate in opening order, so the first one not due ends the scan.
      if (!all && now - pending.openedNanos() < interval) {
        return;
      }
      it.remove();
      sealed.add(pending);
    }
  }

  private void write(PendingSegment segment) {
    while (true) {
      long sequence = nextSequence;
      String key = layout.segmentKey(streamId, sequence);
      byte[] bytes = WalSegmentCodec.encode(header(segment, sequence), segment.batches());
      Outcome outcome = put(key, bytes);
      switch (outcome) {
        case WRITTEN:
          nextSequence = sequence + 1;
          unacknowledgedSegment = null;
          budget.release(segment.charged());
          acknowledge(segment, sequence);
          return;
        case EARLIER_SEGMENT_LANDED:
          LOG.warn("WAL segment {} whose write was reported failed had landed; writing the next "
              + "segment after it", key);
          nextSequence = sequence + 1;
          unacknowledgedSegment = null;
          continue;
        case FENCED:
          String reason = "Cannot write WAL segment " + key + ": another writer already wrote "
              + "it, so stream '" + streamId + "' is fenced and this ingest process accepts no "
              + "more writes (restart it with another stream id)";
          LOG.error(reason);
          budget.release(segment.charged());
          stopWith(State.FENCED, new StreamFencedException(reason), segment);
          return;
        default:
          unacknowledgedSegment = bytes;
          budget.release(segment.charged());
          segment.fail(new WalUnavailableException("Cannot write WAL segment " + key + " after "
              + config.retry().maxAttempts() + " attempts: " + lastFailure.getMessage(),
              lastFailure));
          return;
      }
    }
  }

  private Outcome put(String key, byte[] bytes) {
    PutRetryPolicy retry = config.retry();
    for (int attempt = 1; ; attempt++) {
      try {
        if (store.putIfAbsent(key, bytes)) {
          return Outcome.WRITTEN;
        }
        return existingOutcome(key, bytes);
      } catch (RuntimeException e) {
        SegmentStoreException failure = e instanceof SegmentStoreException store ? store
            : new SegmentStoreException("Cannot write " + key + ": " + e, e, false);
        lastFailure = failure;
        if (!failure.retryable() || attempt >= retry.maxAttempts()) {
          LOG.warn("Giving up on WAL segment {} after {} attempts", key, attempt, failure);
          return Outcome.FAILED;
        }
        LOG.debug("Retrying WAL segment {} (attempt {} failed)", key, attempt, failure);
        try {
          sleeper.sleep(retry.backoff(attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return Outcome.FAILED;
        }
      }
    }
  }

  /**
   * The key exists: it is ours (an earlier attempt landed), our last unacknowledged segment,
   * or another writer's.
   */
  private Outcome existingOutcome(String key, byte[] bytes) {
    Optional<byte[]> existing = store.get(key);
    if (existing.isEmpty()) {
      throw new SegmentStoreException("Cannot write " + key + ": the store reported it as "
          + "existing but it cannot be read", null, true);
    }
    if (Arrays.equals(existing.get(), bytes)) {
      return Outcome.WRITTEN;
    }
    if (unacknowledgedSegment != null && Arrays.equals(existing.get(), unacknowledgedSegment)) {
      return Outcome.EARLIER_SEGMENT_LANDED;
    }
    return Outcome.FENCED;
  }

  private WalSegmentHeader header(PendingSegment segment, long sequence) {
    SegmentTarget target = segment.target();
    return new WalSegmentHeader(target.tableUuid(), target.tableName(), target.schemaId(),
        streamId, sequence, segment.rows(), segment.hlcMin(), segment.hlcMax(),
        wallMillis.getAsLong());
  }

  private void acknowledge(PendingSegment segment, long sequence) {
    List<WalBatch> batches = segment.batches();
    for (int i = 0; i < batches.size(); i++) {
      WalBatch batch = batches.get(i);
      segment.futures().get(i).complete(
          new PutAck(streamId, sequence, i, batch.hlc(), batch.rowCount()));
    }
  }

  /** Enters a final state and fails every segment still held (plus {@code current}). */
  private void stopWith(State finalState, WalUnavailableException error, PendingSegment current) {
    List<PendingSegment> doomed = new ArrayList<>();
    lock.lock();
    try {
      state = finalState;
      if (finalState == State.FENCED) {
        fencedReason = error.getMessage();
      }
      doomed.addAll(sealed);
      doomed.addAll(open.values());
      sealed.clear();
      open.clear();
      work.signalAll();
    } finally {
      lock.unlock();
    }
    for (PendingSegment segment : doomed) {
      budget.release(segment.charged());
    }
    if (current != null) {
      doomed.add(0, current);
    }
    for (PendingSegment segment : doomed) {
      segment.fail(error);
    }
  }
}
