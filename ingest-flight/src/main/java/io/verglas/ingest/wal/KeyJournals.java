package io.verglas.ingest.wal;

import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import io.verglas.protocol.PutAck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency keys of a stream that survive a restart.
 *
 * <p>Design: keys travel in the segments, but the materializer deletes committed segments, so
 * after a segment with keyed batches is durable, and before its batches are acknowledged, its
 * keys are written to a small journal object of their own ({@link KeyJournal}). A lane writes
 * its next segment only after that, so at any time at most the last segment of each lane can be
 * durable without a journal (when the process died in between): a restart reads the journals
 * written within the idempotency window plus the last segment of every lane. Journals older
 * than the window are deleted by the stream's owner.
 */
final class KeyJournals {
  private static final Logger LOG = LoggerFactory.getLogger(KeyJournals.class);
  private static final int READ_THREADS = 8;
  /** Listing times come from the store's clock: keep journals a little longer than the window. */
  private static final long CLOCK_SLACK_MILLIS = Duration.ofMinutes(1).toMillis();

  private final SegmentStore store;
  private final IngestLayout layout;
  private final String streamId;
  private final Duration window;
  private final LongSupplier wallMillis;

  KeyJournals(SegmentStore store, IngestLayout layout, String streamId, Duration window,
      LongSupplier wallMillis) {
    this.store = store;
    this.layout = layout;
    this.streamId = streamId;
    this.window = window;
    this.wallMillis = wallMillis;
  }

  void write(KeyJournal journal) {
    store.put(layout.journalKey(streamId, journal.lane(), journal.sequence()), journal.toBytes());
  }

  /** Restores the keys of the window into the index: journals, then the lanes' last segments. */
  int restore(IdempotencyIndex index, List<WalSegment> lastSegments) throws InterruptedException {
    long now = wallMillis.getAsLong();
    long cutoff = now - window.toMillis() - CLOCK_SLACK_MILLIS;
    List<String> keys = new ArrayList<>();
    for (SegmentStore.StoredObject object : store.listObjects(layout.journalPrefix(streamId))) {
      if (object.lastModifiedMillis() >= cutoff) {
        keys.add(object.key());
      }
    }
    List<KeyJournal> journals = read(keys);
    for (WalSegment segment : lastSegments) {
      journals.add(fromSegment(segment));
    }
    journals.sort(Comparator.comparingLong(KeyJournal::createdAtMillis));
    int restored = 0;
    for (KeyJournal journal : journals) {
      for (KeyJournal.Entry entry : journal.entries()) {
        index.restore(entry.tableUuid(), entry.key(), journal.ack(entry), journal.createdAtMillis());
        restored++;
      }
    }
    return restored;
  }

  /** Deletes journals older than the window; returns how many. */
  int expire() {
    long cutoff = wallMillis.getAsLong() - window.toMillis() - CLOCK_SLACK_MILLIS;
    int deleted = 0;
    for (SegmentStore.StoredObject object : store.listObjects(layout.journalPrefix(streamId))) {
      if (object.lastModifiedMillis() < cutoff) {
        store.delete(object.key());
        deleted++;
      }
    }
    return deleted;
  }

  static KeyJournal fromSegment(WalSegment segment) {
    List<KeyJournal.Entry> entries = new ArrayList<>();
    List<WalBatch> batches = segment.batches();
    for (int i = 0; i < batches.size(); i++) {
      WalBatch batch = batches.get(i);
      if (batch.idempotencyKey() != null) {
        entries.add(new KeyJournal.Entry(segment.header().tableUuid(), batch.idempotencyKey(), i,
            batch.hlc(), batch.rowCount()));
      }
    }
    return new KeyJournal(segment.header().streamId(), segment.header().sequence(),
        segment.header().createdAtMillis(), entries);
  }

  static PutAck ack(WalSegment segment, int batch) {
    WalBatch b = segment.batches().get(batch);
    return new PutAck(segment.header().streamId(), segment.header().sequence(), batch, b.hlc(),
        b.rowCount());
  }

  private List<KeyJournal> read(List<String> keys) throws InterruptedException {
    List<KeyJournal> journals = new ArrayList<>();
    if (keys.isEmpty()) {
      return journals;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(READ_THREADS, keys.size()));
    try {
      List<Future<Optional<byte[]>>> reads = new ArrayList<>();
      for (String key : keys) {
        reads.add(pool.submit(() -> store.get(key)));
      }
      for (int i = 0; i < keys.size(); i++) {
        try {
          Optional<byte[]> bytes = reads.get(i).get();
          if (bytes.isPresent()) {
            journals.add(KeyJournal.fromBytes(bytes.get()));
          }
        } catch (java.util.concurrent.ExecutionException | IllegalArgumentException e) {
          Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
          if (cause instanceof SegmentStoreException failure) {
            throw failure;
          }
          LOG.warn("Cannot read idempotency key journal {}: {}", keys.get(i), cause.toString());
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return journals;
  }
}
