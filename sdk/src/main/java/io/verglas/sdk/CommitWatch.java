package io.verglas.sdk;

import io.verglas.protocol.PutAck;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Waits until acknowledged batches are committed to their Iceberg table and names the snapshot
 * that first held them.
 *
 * <p>Design: an acknowledgement places a batch in the WAL (stream, segment); the materializer's
 * snapshot summary says which segments of each stream it has committed ({@link TableSnapshot}).
 * A commit also names the keys of the batches it made durable; a snapshot naming a batch's key
 * holds it too (sooner, when a checkpoint ended inside the batch's segment).
 * The watch polls the current snapshot through the query node, walking back over snapshots
 * without marks (a compaction's) to the newest one that has them, until the marks cover every
 * batch. Then it walks back the lineage to the earliest snapshot still covering them, so a
 * replayed commit (which the ingest server answers with the first acknowledgement) names the same
 * snapshot as the first one did. Walks are bounded ({@link #MAX_WALK} snapshots): a replay long
 * after the commit may name a later snapshot, which holds the rows as well.
 *
 * <p>Time: polls every {@code pollInterval} until {@code timeout}; a materializer that is not
 * running makes the watch fail with TIMED_OUT and a message saying so.
 */
final class CommitWatch {
  static final int MAX_WALK = 64;

  private final QueryClient queries;
  private final TableIdentifier table;
  private final Duration timeout;
  private final Duration pollInterval;

  CommitWatch(QueryClient queries, TableIdentifier table, Duration timeout, Duration pollInterval) {
    this.queries = queries;
    this.table = table;
    this.timeout = timeout;
    this.pollInterval = pollInterval;
  }

  /** A batch sent: its acknowledgement and its idempotency key. */
  record Sent(PutAck ack, String key) {}

  /** The earliest snapshot holding every batch of {@code acks}. */
  TableSnapshot await(List<Sent> acks) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      TableSnapshot marked = newestWithMarks(queries.snapshot(table, null));
      if (marked != null && coversAll(marked, acks)) {
        return earliestCovering(marked, acks);
      }
      if (System.nanoTime() > deadline) {
        PutAck last = acks.get(acks.size() - 1).ack();
        throw new VerglasException(FlightStatusCode.TIMED_OUT, "Cannot confirm the commit to "
            + table + ": WAL segment " + last.stream() + "/" + last.sequence() + " is not committed"
            + " after " + timeout.toSeconds() + " s (is the materializer running?)");
      }
      LockSupport.parkNanos(pollInterval.toNanos());
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new VerglasException(FlightStatusCode.CANCELLED, "Interrupted waiting for the commit to " + table);
      }
    }
  }

  private TableSnapshot newestWithMarks(TableSnapshot snapshot) {
    for (int steps = 0; snapshot != null && steps < MAX_WALK; steps++) {
      if (snapshot.hasWalMarks()) {
        return snapshot;
      }
      snapshot = parent(snapshot);
    }
    return null;
  }

  private TableSnapshot earliestCovering(TableSnapshot covering, List<Sent> acks) {
    TableSnapshot earliest = covering;
    TableSnapshot snapshot = parent(covering);
    for (int steps = 0; snapshot != null && steps < MAX_WALK; steps++) {
      if (snapshot.hasWalMarks()) {
        if (!coversAll(snapshot, acks)) {
          break;
        }
        earliest = snapshot;
      }
      snapshot = parent(snapshot);
    }
    return earliest;
  }

  /** The parent, or null for the first snapshot or when the parent has expired. */
  private TableSnapshot parent(TableSnapshot snapshot) {
    if (snapshot.parentId() == null) {
      return null;
    }
    try {
      return queries.snapshot(table, snapshot.parentId());
    } catch (QueryFailedException e) {
      if (e.status() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static boolean coversAll(TableSnapshot snapshot, List<Sent> acks) {
    return acks.stream().allMatch(sent -> snapshot.covers(sent.ack(), sent.key()));
  }
}
