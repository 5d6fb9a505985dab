package io.verglas.cache.writeback;

import io.verglas.cache.writeback.fragment.FragmentStore;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Removes the fragments no journal record names: those of a coordinator that died after its
 * fragments were committed on their holders and before its record reached them (or before it
 * journaled it, its copies then dropped by reconciliation), and those a crash left between a
 * clean mark and the release.
 *
 * <p>Design. A committed fragment file in one of this node's own stores is an orphan when no
 * live write has its identity and it was last written more than the grace period ago. Live:
 * the writes being staged here, read first ({@link WriteBackStager#staging}: a write enters it
 * before its first fragment exists and leaves it after its record was journaled, so reading it
 * before the journal misses none), then this node's pending records, then the copies it keeps
 * for other coordinators. Another coordinator's write in staging is known here only once its
 * record arrives, after its fragments were committed: the grace period, far above a PUT's
 * staging time, covers that window, and a write whose record arrives in it is never touched.
 * A node recovering its lost journal must not sweep (its own writes' records are not back yet):
 * the caller checks. Unfinished ({@code .tmp}) files are the store's, deleted on its open.
 * Runs on the caller's thread; one directory listing per store.
 */
final class OrphanSweep {
  private final Supplier<List<FragmentNode>> nodes;
  private final Supplier<Set<ObjectIdentity>> live;
  private final LongSupplier clock;

  /**
   * @param nodes the fragment nodes; the sweep covers those whose fragments are in this process
   * @param live the identities of the live writes, read in the order above ({@link WriteBackStager#liveWrites})
   * @param clock epoch millis, the clock fragment files' modification times are in
   */
  OrphanSweep(Supplier<List<FragmentNode>> nodes, Supplier<Set<ObjectIdentity>> live, LongSupplier clock) {
    this.nodes = Objects.requireNonNull(nodes, "nodes");
    this.live = Objects.requireNonNull(live, "live");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** One sweep; returns the fragments removed. */
  int runOnce(Duration grace) throws IOException {
    Instant before = Instant.ofEpochMilli(clock.getAsLong()).minus(grace);
    Set<ObjectIdentity> writes = live.get();
    int removed = 0;
    for (FragmentNode node : nodes.get()) {
      if (node.store() instanceof FragmentStore store) {
        removed += store.removeOrphans(writes, before);
      }
    }
    return removed;
  }
}
