package io.verglas.ingest.wal;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.protocol.PutAck;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.EncodedSegment;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.util.ArrayDeque;
import java.util.ArrayList;
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
 * Writes the batches of one ingest stream into WAL segments on the object store, many batches
 * per PUT, and completes each batch's future only once its segment is durable.
 *
 * <p>Design. Batches from every concurrent caller gather per table in an <em>open</em> segment.
 * A segment is <em>sealed</em> when its bytes reach {@code flushBytes} (by the appending
 * caller) or when its first batch has waited {@code flushInterval} (by an idle lane), or only
 * {@code flushLinger} while no lane is writing: with the store idle, waiting longer cannot save
 * a PUT, only delay acknowledgements (the last batches of a burst would otherwise wait out the
 * interval). The
 * stream writes through {@code lanes} lanes at once, each a WAL stream of its own
 * ({@link IngestLayout#laneStreamId}): a lane takes the oldest sealed segment, gives it the
 * lane's next sequence number and PUTs it with {@code If-None-Match: *}, one segment at a time.
 * So within a lane segments become visible strictly in sequence order (a reader listing with
 * {@code start-after} never skips one), while the lanes together keep several PUTs in flight;
 * the object store's latency, not its bandwidth, limits a single ordered stream.
 *
 * <p>Ownership. {@link #start()} claims the stream ({@link StreamClaim}) and recovers every
 * lane. After each PUT, before acknowledging, a lane asks the claim whether a newer process
 * took the stream over; if so the writer is fenced: it fails everything it holds (the batches
 * of the segment just written are durable but unacknowledged) and accepts nothing more.
 *
 * <p>Clock. A batch is stamped with the hybrid logical clock when it enters its open segment,
 * under the writer's lock, so stamps follow the order in which batches are accepted. A later
 * batch of the same caller always gets a greater stamp, whichever lane writes it; last writer
 * wins compares stamps, then (stream, sequence, batch, row), see {@code WalPosition}. A table's
 * open segment is sealed early when a batch validated against another schema id arrives,
 * keeping one schema per segment.
 *
 * <p>Idempotency. A batch with a key that the stream saw within the window is not written
 * again: the caller gets the earlier batch's acknowledgement (or joins it while it is in
 * flight). Keys of durable segments are journaled before the acknowledgement
 * ({@link KeyJournals}) and restored at start.
 *
 * <p>Failures. PUTs are retried with backoff ({@link PutRetryPolicy}); after the last attempt
 * the segment's batches fail with {@link WalUnavailableException} and the lane reuses the
 * sequence number for its next segment, because the failed PUT was never acknowledged. If that
 * failed PUT did land after all, the next PUT finds its exact bytes under the key and moves on
 * to the following number (remembering the keys of the batches that landed). Any other object
 * under a lane's next key was written by another process of this stream: the lane asks the
 * claim (fenced if superseded) and otherwise continues after the highest segment listed.
 *
 * <p>Memory. Accepted-but-not-durable batches are bounded by {@code maxBufferedBytes}
 * (encoded bytes); {@link #append} blocks while the budget is exhausted, up to
 * {@code backpressureTimeout}, then fails with {@link WalUnavailableException}.
 */
public final class GroupCommitter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommitter.class);
  private static final long IDLE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** Foreign segments a lane moves past for one segment before giving up on it. */
  private static final int MAX_FOREIGN_SEGMENTS = 8;

  private enum State { NEW, RUNNING, CLOSING, CLOSED, FENCED }

  private enum Outcome { WRITTEN, EARLIER_SEGMENT_LANDED, FOREIGN, FAILED }

  /** What health checks report. */
  public record Status(String state, long epoch, List<LaneStatus> lanes, long bufferedBytes) {}

  /** One lane: its WAL stream id and the sequence its next segment gets. */
  public record LaneStatus(String stream, long nextSequence) {}

  private final String streamId;
  private final IngestLayout layout;
  private final SegmentStore store;
  private final HybridLogicalClock clock;
  private final WalWriterConfig config;
  private final IngestMetrics metrics;
  private final LongSupplier nanoTime;
  private final LongSupplier wallMillis;
  private final Retrier retrier;
  private final ByteBudget budget;
  private final StreamClaim claim;
  private final IdempotencyIndex keys;
  private final KeyJournals journals;
  private final List<Lane> lanes = new ArrayList<>();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  // Guarded by lock. Open segments by table uuid, in the order they were opened.
  private final Map<String, PendingSegment> open = new LinkedHashMap<>();
  private final ArrayDeque<PendingSegment> sealed = new ArrayDeque<>();
  private State state = State.NEW;
  private String fencedReason;
  private int busyLanes;

  public GroupCommitter(String streamId, IngestLayout layout, SegmentStore store,
      HybridLogicalClock clock, WalWriterConfig config, IngestMetrics metrics, String owner) {
    this(streamId, layout, store, clock, config, metrics, owner, System::nanoTime,
        System::currentTimeMillis, duration -> TimeUnit.NANOSECONDS.sleep(duration.toNanos()));
  }

  GroupCommitter(String streamId, IngestLayout layout, SegmentStore store,
      HybridLogicalClock clock, WalWriterConfig config, IngestMetrics metrics, String owner,
      LongSupplier nanoTime, LongSupplier wallMillis, Retrier.Sleeper sleeper) {
    this.streamId = IngestLayout.checkStreamId(streamId);
    this.layout = Objects.requireNonNull(layout, "layout");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.config = Objects.requireNonNull(config, "config");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.nanoTime = nanoTime;
    this.wallMillis = wallMillis;
    this.retrier = new Retrier(config.retry(), sleeper, metrics);
    this.budget = new ByteBudget(config.maxBufferedBytes());
    this.claim = new StreamClaim(store, layout, streamId, owner, wallMillis);
    this.keys = new IdempotencyIndex(config.idempotencyWindow(), config.idempotencyMaxKeys(),
        wallMillis);
    this.journals = new KeyJournals(store, layout, streamId, config.idempotencyWindow(),
        wallMillis);
    metrics.bufferedBytes(budget::used);
  }

  public String streamId() {
    return streamId;
  }

  /**
   * Claims the stream, recovers where each lane continues and which idempotency keys were
   * seen, then starts the lanes.
   *
   * @throws SegmentStoreException if the object store cannot be reached
   */
  public void start() {
    lock.lock();
    try {
      if (state != State.NEW) {
        throw new IllegalStateException("Cannot start WAL writer for stream " + streamId
            + ": it is " + state.name().toLowerCase(Locale.ROOT));
      }
      long epoch = retrier.call("claim stream " + streamId, () -> claim.acquire(config.lanes()));
      int previousLanes = claim.previous().map(StreamClaim.Claim::lanes).orElse(0);
      List<WalSegment> lastSegments = new ArrayList<>();
      for (int i = 0; i < Math.max(config.lanes(), previousLanes); i++) {
        String laneId = layout.laneStreamId(streamId, i);
        StreamRecovery.LaneStart start = StreamRecovery.recover(store, layout.wal(), laneId, clock);
        start.lastSegment().ifPresent(lastSegments::add);
        if (i < config.lanes()) {
          lanes.add(new Lane(laneId, start.nextSequence()));
        }
      }
      int restored = journals.restore(keys, lastSegments);
      state = State.RUNNING;
      for (Lane lane : lanes) {
        lane.start();
      }
      LOG.info("WAL writer for stream {} claimed epoch {}; lanes {}; {} idempotency keys "
          + "restored", streamId, epoch, status().lanes(), restored);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SegmentStoreException("Interrupted while recovering stream " + streamId, e, false);
    } finally {
      lock.unlock();
    }
  }

  /** Deletes idempotency key journals older than the window; returns how many. */
  public int expireKeyJournals() {
    return journals.expire();
  }

  /**
   * The earlier batch with this key, if the stream saw one within the idempotency window: the
   * caller should answer with it instead of appending. Checked again inside {@link #append}.
   */
  public Optional<CompletableFuture<PutAck>> duplicateOf(SegmentTarget target, String key) {
    if (key == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(keys.find(target.tableUuid(), key));
  }

  /**
   * Accepts one encoded batch for the target's next segment.
   *
   * @return a future completed with the batch's acknowledgement once its segment is durable,
   *     or exceptionally with a {@link WalUnavailableException}; for a key seen before, the
   *     earlier batch's
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
    Optional<CompletableFuture<PutAck>> duplicate = duplicateOf(target, idempotencyKey);
    if (duplicate.isPresent()) {
      metrics.duplicateAbsorbed();
      return duplicate.get();
    }
    long charge = budget.charge(arrowIpc.length);
    acquire(target, arrowIpc.length);
    lock.lock();
    try {
      checkAccepting(target);
      if (idempotencyKey != null) {
        CompletableFuture<PutAck> raced = keys.find(target.tableUuid(), idempotencyKey);
        if (raced != null) {
          budget.release(charge);
          metrics.duplicateAbsorbed();
          return raced;
        }
      }
      PendingSegment pending = open.get(target.tableUuid());
      if (pending != null && !pending.target().equals(target)) {
        seal(pending);
        pending = null;
      }
      long now = nanoTime.getAsLong();
      if (pending == null) {
        pending = new PendingSegment(target, now);
        open.put(target.tableUuid(), pending);
        work.signalAll();
      }
      WalBatch batch = new WalBatch(clock.tick(), rowCount, idempotencyKey, arrowIpc);
      CompletableFuture<PutAck> future = pending.add(batch, charge, now);
      if (idempotencyKey != null) {
        keys.inFlight(target.tableUuid(), idempotencyKey, future);
      }
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

  /** Makes the lanes re-check their deadlines; tests call it after advancing their ticker. */
  void wakeLanes() {
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
      List<LaneStatus> laneStatus = new ArrayList<>();
      for (Lane lane : lanes) {
        laneStatus.add(new LaneStatus(lane.id, lane.next));
      }
      return new Status(state.name().toLowerCase(Locale.ROOT), claim.epoch(), laneStatus,
          budget.used());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops accepting batches, writes every pending segment, and stops the lanes. Idempotent.
   * Batches that cannot be written fail as usual (after the PUT retries).
   */
  @Override
  public void close() {
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
    } finally {
      lock.unlock();
    }
    for (Lane lane : lanes) {
      lane.join();
    }
    lock.lock();
    try {
      if (state == State.CLOSING) {
        state = State.CLOSED;
      }
    } finally {
      lock.unlock();
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
    pending.sealed(nanoTime.getAsLong());
    sealed.add(pending);
    work.signalAll();
  }

  /** Blocks until a segment is due; null once closing and drained, or stopped. */
  private PendingSegment nextSegment() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        if (state == State.FENCED || state == State.CLOSED) {
          return null;
        }
        long now = nanoTime.getAsLong();
        long due = busyLanes == 0 ? config.flushLinger().toNanos() : interval();
        sealDue(now, state == State.CLOSING, due);
        PendingSegment head = sealed.poll();
        if (head != null) {
          busyLanes++;
          return head;
        }
        if (state == State.CLOSING) {
          return null;
        }
        long wait = open.isEmpty() ? IDLE_WAIT_NANOS : oldestOpened() + due - now;
        work.awaitNanos(Math.max(1, wait));
      }
    } finally {
      lock.unlock();
    }
  }

  private long interval() {
    return config.flushInterval().toNanos();
  }

  /** A lane finished a segment: idle lanes may now seal after the linger instead. */
  private void laneIdle() {
    lock.lock();
    try {
      busyLanes--;
      work.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** When the oldest open segment got its first batch. Caller holds the lock; open is not empty. */
  private long oldestOpened() {
    return open.values().iterator().next().openedNanos();
  }

  /** Seals the open segments whose first batch waited {@code interval} (all if closing). */
  private void sealDue(long now, boolean all, long interval) {
    Iterator<PendingSegment> it = open.values().iterator();
    while (it.hasNext()) {
      PendingSegment pending = it.next();
      // Open segments iterate in opening order, so the first one not due ends the scan.
      if (!all && now - pending.openedNanos() < interval) {
        return;
      }
      it.remove();
      pending.sealed(now);
      sealed.add(pending);
    }
  }

  private WalSegmentHeader header(PendingSegment segment, String laneId, long sequence) {
    SegmentTarget target = segment.target();
    return new WalSegmentHeader(target.tableUuid(), target.tableName(), target.schemaId(),
        laneId, sequence, segment.rows(), segment.hlcMin(), segment.hlcMax(),
        wallMillis.getAsLong());
  }

  private void acknowledge(PendingSegment segment, String laneId, long sequence) {
    List<WalBatch> batches = segment.batches();
    long now = nanoTime.getAsLong();
    for (int i = 0; i < batches.size(); i++) {
      WalBatch batch = batches.get(i);
      PutAck ack = new PutAck(laneId, sequence, i, batch.hlc(), batch.rowCount());
      if (batch.idempotencyKey() != null) {
        keys.durable(segment.target().tableUuid(), batch.idempotencyKey(), ack);
      }
      metrics.batchAcknowledged(batch.rowCount(), now - segment.appendedNanos(i));
      segment.futures().get(i).complete(ack);
    }
  }

  private void fail(PendingSegment segment, Throwable error) {
    List<WalBatch> batches = segment.batches();
    for (int i = 0; i < batches.size(); i++) {
      CompletableFuture<PutAck> future = segment.futures().get(i);
      String key = batches.get(i).idempotencyKey();
      if (key != null) {
        keys.failed(segment.target().tableUuid(), key, future);
      }
      metrics.batchFailed();
      future.completeExceptionally(error);
    }
  }

  /** Remembers the keys of a durable segment this process did not acknowledge. */
  private void rememberKeys(WalSegment segment) {
    List<WalBatch> batches = segment.batches();
    for (int i = 0; i < batches.size(); i++) {
      String key = batches.get(i).idempotencyKey();
      if (key != null) {
        keys.durable(segment.header().tableUuid(), key, KeyJournals.ack(segment, i));
      }
    }
  }

  /**
   * Enters a final state and fails every segment still held, plus {@code current} (whose
   * budget the caller already released).
   */
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
      fail(segment, error);
    }
  }

  /** One ordered WAL stream of this ingest stream, written by its own thread. */
  private final class Lane {
    private final String id;
    private final Thread thread;
    // Written by the lane's thread only (and read by status()).
    private volatile long next;
    private EncodedSegment failedBytes;

    Lane(String id, long next) {
      this.id = id;
      this.next = next;
      this.thread = new Thread(this::run, "verglas-wal-" + id);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void join() {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void run() {
      try {
        PendingSegment segment;
        while ((segment = nextSegment()) != null) {
          try {
            write(segment);
          } finally {
            laneIdle();
          }
        }
      } catch (Throwable t) {
        // A bug, not an object-store failure (those are handled per segment): never leave
        // callers waiting for futures that nobody completes.
        LOG.error("WAL lane {} stopped unexpectedly", id, t);
        stopWith(State.CLOSED, new WalUnavailableException("WAL writer for stream " + streamId
            + " stopped unexpectedly: " + t, t), null);
      }
    }

    private void write(PendingSegment segment) {
      int foreign = 0;
      while (true) {
        long sequence = next;
        String key = layout.wal().segmentKey(id, sequence);
        EncodedSegment bytes = WalSegmentCodec.encodeParts(header(segment, id, sequence),
            segment.batches());
        Outcome outcome;
        SegmentStoreException failure = null;
        byte[][] existing = new byte[1][];
        try {
          outcome = retrier.call("write WAL segment " + key, () -> put(key, bytes, existing));
        } catch (SegmentStoreException e) {
          outcome = Outcome.FAILED;
          failure = e;
        }
        switch (outcome) {
          case WRITTEN:
            long ticket = claim.ticket();
            next = sequence + 1;
            failedBytes = null;
            written(segment, sequence, bytes.length(), ticket);
            return;
          case EARLIER_SEGMENT_LANDED:
            LOG.warn("WAL segment {} whose write was reported failed had landed; writing the "
                + "next segment after it", key);
            rememberKeys(WalSegmentCodec.decode(failedBytes.toByteArray()));
            next = sequence + 1;
            failedBytes = null;
            continue;
          case FOREIGN:
            if (fencedByClaim(segment, key, claim.ticket())) {
              return;
            }
            if (++foreign > MAX_FOREIGN_SEGMENTS) {
              budget.release(segment.charged());
              fail(segment, new WalUnavailableException("Cannot write WAL segment " + key
                  + ": " + foreign + " segments of stream " + id + " were written by another "
                  + "process in a row"));
              return;
            }
            absorbForeign(key, existing[0]);
            next = Math.max(sequence + 1,
                StreamRecovery.highestSequence(store, layout.wal(), id) + 1);
            continue;
          default:
            metrics.putFailed();
            failedBytes = bytes;
            budget.release(segment.charged());
            fail(segment, new WalUnavailableException("Cannot write WAL segment " + key + ": "
                + failure.getMessage(), failure));
            return;
        }
      }
    }

    /** The segment is durable: check ownership, journal its keys, then acknowledge. */
    private void written(PendingSegment segment, long sequence, long bytes, long ticket) {
      String key = layout.wal().segmentKey(id, sequence);
      if (fencedByClaim(segment, key, ticket)) {
        return;
      }
      if (segment.keyed()) {
        KeyJournal journal = KeyJournals.fromSegment(new WalSegment(
            header(segment, id, sequence), segment.batches()));
        try {
          retrier.call("write key journal of " + key, () -> {
            journals.write(journal);
            return null;
          });
        } catch (SegmentStoreException e) {
          // Durable but its keys would not survive a restart: fail it, and let a retry (with
          // its key) be answered from memory with the acknowledgement of what is durable.
          metrics.putFailed();
          budget.release(segment.charged());
          for (KeyJournal.Entry entry : journal.entries()) {
            keys.durable(entry.tableUuid(), entry.key(), journal.ack(entry));
          }
          fail(segment, new WalUnavailableException("Cannot record the idempotency keys of WAL "
              + "segment " + key + " (the batches are durable; retry them with the same keys): "
              + e.getMessage(), e));
          return;
        }
      }
      metrics.segmentWritten(bytes, nanoTime.getAsLong() - segment.sealedNanos());
      budget.release(segment.charged());
      acknowledge(segment, id, sequence);
    }

    /**
     * Fences the writer if a newer process claimed the stream (by a check begun after
     * {@code ticket}); true if it did.
     */
    private boolean fencedByClaim(PendingSegment segment, String key, long ticket) {
      boolean superseded;
      try {
        superseded = retrier.call("check the claim of stream " + streamId,
            () -> claim.supersededSince(ticket));
      } catch (SegmentStoreException e) {
        metrics.putFailed();
        budget.release(segment.charged());
        fail(segment, new WalUnavailableException("Cannot confirm that this process still owns "
            + "stream " + streamId + " after writing " + key + ": " + e.getMessage(), e));
        return true;
      }
      if (!superseded) {
        return false;
      }
      String reason = "Cannot acknowledge WAL segment " + key + ": another process claimed "
          + "stream '" + streamId + "' (epoch " + (claim.epoch() + 1) + "), so this ingest "
          + "process is fenced and accepts no more writes";
      LOG.error(reason);
      budget.release(segment.charged());
      stopWith(State.FENCED, new StreamFencedException(reason), segment);
      return true;
    }

    private void absorbForeign(String key, byte[] bytes) {
      if (bytes == null) {
        return;
      }
      try {
        rememberKeys(WalSegmentCodec.decode(bytes));
      } catch (CorruptSegmentException e) {
        LOG.warn("Foreign object {} is not a valid WAL segment: {}", key, e.getMessage());
      }
    }

    private Outcome put(String key, EncodedSegment bytes, byte[][] existing) {
      if (store.putIfAbsent(key, bytes)) {
        return Outcome.WRITTEN;
      }
      Optional<byte[]> found = store.get(key);
      if (found.isEmpty()) {
        throw new SegmentStoreException("Cannot write " + key + ": the store reported it as "
            + "existing but it cannot be read", null, true);
      }
      if (bytes.contentEquals(found.get())) {
        return Outcome.WRITTEN;
      }
      if (failedBytes != null && failedBytes.contentEquals(found.get())) {
        return Outcome.EARLIER_SEGMENT_LANDED;
      }
      existing[0] = found.get();
      return Outcome.FOREIGN;
    }
  }
}
