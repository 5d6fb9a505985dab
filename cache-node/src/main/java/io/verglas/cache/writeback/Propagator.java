package io.verglas.cache.writeback;

import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers acknowledged writes to the origin and retires them, one pass at a time.
 *
 * <p>Design. A pass walks the journal's dirty writes oldest first. A write that a later
 * acknowledged change of its key superseded (this node's, or another coordinator's replicated
 * here; "later" is {@link JournalRecord.Pending#ACK_ORDER}) is retired without an upload (the
 * origin's own semantics for concurrent PUTs are last-writer-wins, so only the latest matters).
 * A change while another coordinator holds an older pending change of its key waits (deferred,
 * not failed): that coordinator retires its change as superseded once it sees this one, and the
 * next pass here applies it; applied at once instead, the older change could reach the origin
 * after it (its coordinator no longer sees this change once it is retired). Any other change
 * is reconstructed from its fragments and written to the origin; only after that returns is it
 * retired: clean mark journaled and fsynced, then fragments released ({@link
 * WriteBackStager#retire}). Order: once a write of a key fails in a pass, later writes of that
 * key wait for the next pass, so an older write can never reach the origin after a newer one.
 * Failures: a failed upload leaves the write dirty and readable; the next pass tries again, so
 * an origin outage delays propagation and loses nothing; a pass never gives up on an
 * acknowledged write. Idempotency: a crash after the upload and before the clean mark uploads
 * the same bytes again after restart; a second pass over retired writes does nothing.
 *
 * <p>Deletes: a journaled {@link JournalRecord.Deleted} is applied in its place in the key's order,
 * after the writes journaled before it.
 *
 * <p>Conflicts: a write the origin refuses because someone wrote the key around the cache since
 * it was acknowledged ({@link PropagationConflictException}, see {@link OriginApplier}) counts
 * as failed in its pass and is then held: later passes skip it (and the key's later changes
 * here), it stays dirty and readable with its fragments, until a later change of the key
 * supersedes it; {@link #conflicts} tells how many are held. A restart tries each once more.
 *
 * <p>Not here: backoff between passes (the node's {@link WriteBackNode} schedules passes and
 * backs off after failed ones; its origin is behind the node's origin protection), parallel
 * uploads.
 */
public final class Propagator {
  private static final Logger LOG = LoggerFactory.getLogger(Propagator.class);
  private final WriteBackStager stager;
  private final WriteJournal journal;
  private final OriginWriter origin;
  private final LongAdder propagated = new LongAdder();
  private final LongAdder propagatedBytes = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder superseded = new LongAdder();
  private final LongAdder deferred = new LongAdder();
  private final Set<ObjectIdentity> conflicted = ConcurrentHashMap.newKeySet();

  /**
   * What one pass did: changes applied, retired as superseded, left waiting for an older change
   * of their key another coordinator holds, and failed; {@code lastError} is the last failed
   * upload's message, null without one.
   */
  public record Pass(int propagated, int superseded, int deferred, int failed, String lastError) {}

  public Propagator(WriteBackStager stager, WriteJournal journal, OriginWriter origin) {
    this.stager = Objects.requireNonNull(stager, "stager");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.origin = Objects.requireNonNull(origin, "origin");
  }

  /** One pass over the dirty writes; see the class comment. */
  public synchronized Pass runOnce() throws IOException {
    return pass(journal.pending());
  }

  /**
   * Applies the key's pending changes to the origin now, in journal order (what a write that
   * bypasses write-back does first, so the buffered changes cannot land after it).
   *
   * @throws IOException if one of them could not be applied or is held in conflict, or another
   *     coordinator holds a change of the key (it cannot be applied from here, and would land
   *     after the write); the key stays dirty
   */
  public synchronized void drain(String bucket, String key) throws IOException {
    Pass pass = pass(stager.ownChanges(bucket, key));
    if (pass.failed() > 0) {
      throw new IOException(pass.lastError());
    }
    if (stager.latest(bucket, key).isPresent()) {
      throw new IOException("Cannot write " + bucket + "/" + key + " to the origin yet: a buffered change of the "
          + "key is not on the origin yet (held by another node, or in conflict with the origin)");
    }
  }

  private Pass pass(List<JournalRecord.Pending> records) throws IOException {
    int done = 0;
    int retired = 0;
    int waiting = 0;
    int failed = 0;
    String lastError = null;
    Set<String> blocked = new HashSet<>();
    for (JournalRecord.Pending record : records) {
      String key = record.identity().bucket() + '\0' + record.identity().key();
      if (blocked.contains(key)) {
        continue;
      }
      if (stager.superseded(record)) {
        stager.retire(record);
        conflicted.remove(record.identity());
        superseded.increment();
        retired++;
        continue;
      }
      if (conflicted.contains(record.identity())) {
        blocked.add(key);
        continue;
      }
      if (stager.waitsForOlder(record)) {
        blocked.add(key);
        deferred.increment();
        waiting++;
        continue;
      }
      try {
        apply(record);
      } catch (PropagationConflictException e) {
        conflicted.add(record.identity());
        LOG.warn("Write-back holds {} in conflict: {}", record.identity(), e.getMessage());
        lastError = e.getMessage();
        blocked.add(key);
        failed++;
        continue;
      } catch (IOException | RuntimeException e) {
        lastError = "Cannot propagate " + record.identity() + ": " + e.getMessage();
        blocked.add(key);
        failed++;
        failures.increment();
        continue;
      }
      propagated.increment(); // applied to the origin: counted before its retirement is visible
      stager.retire(record);
      done++;
    }
    return new Pass(done, retired, waiting, failed, lastError);
  }

  private void apply(JournalRecord.Pending record) throws IOException {
    if (record instanceof JournalRecord.Deleted) {
      origin.delete(record.identity().bucket(), record.identity().key(), record.metadata());
      return;
    }
    JournalRecord.Staged staged = (JournalRecord.Staged) record;
    try (InputStream body = stager.open(staged)) {
      origin.put(staged.identity().bucket(), staged.identity().key(), staged.metadata(), staged.bodyLength(), body);
    }
    propagatedBytes.add(staged.bodyLength());
  }

  /** Changes applied to the origin since start (writes and deletes; superseded ones not counted). */
  public long propagated() {
    return propagated.sum();
  }

  /** Body bytes written to the origin since start. */
  public long propagatedBytes() {
    return propagatedBytes.sum();
  }

  /** Changes retired without reaching the origin since start: a later change of their key replaced them. */
  public long superseded() {
    return superseded.sum();
  }

  /** Times since start a pass left a change waiting for an older change of its key on another coordinator. */
  public long deferred() {
    return deferred.sum();
  }

  /** Writes held because the origin holds their key in a state they did not expect (see the class comment). */
  public int conflicts() {
    return conflicted.size();
  }

  /** Failed attempts to apply a change since start. */
  public long failures() {
    return failures.sum();
  }
}
