package io.verglas.cache.writeback;

import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The fragments of retired writes that are not released yet because their holder was not in the
 * view or did not answer: a coordinator back from a crash retires the writes an earlier attempt
 * delivered before its view lists the other members (an origin that already holds the write
 * needs none of its fragments), a peer times out under load, a member is away. Without a second
 * try they would stay until the orphan sweep's grace period ({@link WriteBackConfig#orphanGracePeriod}) ran out.
 *
 * <p>Design. Each write is held with the placements still to release and tried again on every
 * {@link #retry} (once per propagation pass), for at most {@value #MAX_ATTEMPTS} tries; then, or
 * when {@value #MAX_WRITES} newer writes are held, it is given up to the orphan sweep. A try
 * calls no node that is not in the view, and a node that did not answer once is not called again
 * in that try ({@link WriteBackStager#releaseAgain}): a silent holder costs one timeout per
 * pass. Memory: at most {@value #MAX_WRITES} records. Thread-safe; the releases run outside the
 * lock.
 */
final class UnreleasedFragments {
  /** Tries per write: at the default propagation interval, a minute or more for the view to form. */
  static final int MAX_ATTEMPTS = 300;
  static final int MAX_WRITES = 4096;

  private record Held(JournalRecord.Staged record, List<Placement> left, int attempts) {}

  private final ArrayDeque<Held> held = new ArrayDeque<>();

  /** Holds {@code left}, the placements of {@code record} not released; nothing when empty. */
  synchronized void add(JournalRecord.Staged record, List<Placement> left) {
    if (!left.isEmpty()) {
      hold(new Held(record, List.copyOf(left), 0));
    }
  }

  private void hold(Held write) {
    held.addLast(write);
    if (held.size() > MAX_WRITES) {
      held.removeFirst();
    }
  }

  /**
   * Tries each held write's placements again with {@code release} (which answers the placements
   * it could not release); returns how many writes are still held.
   */
  int retry(BiFunction<JournalRecord.Staged, List<Placement>, List<Placement>> release) {
    List<Held> due;
    synchronized (this) {
      due = new ArrayList<>(held);
      held.clear();
    }
    List<Held> again = new ArrayList<>();
    for (Held write : due) {
      List<Placement> left = release.apply(write.record(), write.left());
      if (!left.isEmpty() && write.attempts() + 1 < MAX_ATTEMPTS) {
        again.add(new Held(write.record(), List.copyOf(left), write.attempts() + 1));
      }
    }
    synchronized (this) {
      List<Held> added = new ArrayList<>(held); // retired during the try: newer than those tried
      held.clear();
      again.forEach(this::hold);
      added.forEach(this::hold);
      return held.size();
    }
  }

  /** Writes held. */
  synchronized int size() {
    return held.size();
  }
}
