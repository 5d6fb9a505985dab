package io.verglas.cache.writeback;

import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Delivers acknowledged writes to the origin and retires them, one pass at a time.
 *
 * <p>Design. A pass walks the journal's dirty writes oldest first. A write that a later
 * acknowledged write of its key superseded is retired without an upload (the origin's own
 * semantics for concurrent PUTs are last-writer-wins, so only the latest matters). Any other
 * is reconstructed from its fragments and written to the origin; only after that returns is it
 * retired: clean mark journaled and fsynced, then fragments released ({@link
 * WriteBackStager#retire}). Order: once a write of a key fails in a pass, later writes of that
 * key wait for the next pass, so an older write can never reach the origin after a newer one.
 * Failures: a failed upload leaves the write dirty and readable; the next pass tries again, so
 * an origin outage delays propagation and loses nothing; a pass never gives up on an
 * acknowledged write. Idempotency: a crash after the upload and before the clean mark uploads
 * the same bytes again after restart; a second pass over retired writes does nothing.
 *
 * <p>Not here yet: backoff and origin protection between passes (the caller schedules passes),
 * conditional origin writes, parallel uploads, DELETE ordering.
 */
public final class Propagator {
  private final WriteBackStager stager;
  private final WriteJournal journal;
  private final OriginWriter origin;

  /** What one pass did; {@code lastError} is the last failed upload's message, null without one. */
  public record Pass(int propagated, int superseded, int failed, String lastError) {}

  public Propagator(WriteBackStager stager, WriteJournal journal, OriginWriter origin) {
    this.stager = Objects.requireNonNull(stager, "stager");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.origin = Objects.requireNonNull(origin, "origin");
  }

  /** One pass over the dirty writes; see the class comment. */
  public synchronized Pass runOnce() throws IOException {
    int propagated = 0;
    int superseded = 0;
    int failed = 0;
    String lastError = null;
    Set<String> blocked = new HashSet<>();
    for (JournalRecord.Staged record : journal.dirty()) {
      String key = record.identity().bucket() + '\0' + record.identity().key();
      if (blocked.contains(key)) {
        continue;
      }
      if (stager.superseded(record)) {
        stager.retire(record);
        superseded++;
        continue;
      }
      try {
        upload(record);
      } catch (IOException | RuntimeException e) {
        lastError = "Cannot propagate " + record.identity() + ": " + e.getMessage();
        blocked.add(key);
        failed++;
        continue;
      }
      stager.retire(record);
      propagated++;
    }
    return new Pass(propagated, superseded, failed, lastError);
  }

  private void upload(JournalRecord.Staged record) throws IOException {
    try (InputStream body = stager.open(record)) {
      origin.put(record.identity().bucket(), record.identity().key(), record.metadata(), record.bodyLength(), body);
    }
  }
}
