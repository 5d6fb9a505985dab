package io.verglas.cache.writeback.peer;

import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.ReplicaJournals;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the journal copies whose writes their coordinator no longer holds: what a member that
 * was down (or unreachable) when a clean mark went out keeps otherwise, answering HEADs from a
 * write that is on the origin already and failing GETs of it.
 *
 * <p>Design. For each coordinator this node keeps copies of and that is live, ask it for its
 * pending records ({@code PENDING}); a copy it does not list is marked clean here, unless it was
 * staged less than {@code minAgeMillis} ago (a coordinator replicates a record before it
 * journals it, so a fresh copy may be ahead of its journal). A coordinator recovering its lost
 * journal refuses to answer until it has asked this node for its copies, and they stay. Runs on the caller's thread.
 */
public final class ReplicaReconciliation {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaReconciliation.class);
  private final PeerTransport transport;
  private final ReplicaJournals replicas;
  private final LongSupplier clock;

  public ReplicaReconciliation(PeerTransport transport, ReplicaJournals replicas, LongSupplier clock) {
    this.transport = transport;
    this.replicas = replicas;
    this.clock = clock;
  }

  /** One pass; returns the copies dropped. */
  public int runOnce(long minAgeMillis) {
    int dropped = 0;
    for (Member coordinator : transport.members()) {
      List<JournalRecord.Pending> copies = replicas.pending(coordinator.id());
      if (coordinator.id().equals(transport.selfId()) || copies.isEmpty()) {
        continue;
      }
      try {
        dropped += reconcile(coordinator, copies, clock.getAsLong() - minAgeMillis);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Cannot reconcile the journal copies of {}: {}; next pass", coordinator.id(), e.toString());
      }
    }
    return dropped;
  }

  private int reconcile(Member coordinator, List<JournalRecord.Pending> copies, long stagedBefore)
      throws IOException {
    byte[] answer = PeerLink.await(transport.send(coordinator,
        FragmentProtocol.coordinator(FragmentProtocol.PENDING, transport.selfId(), new byte[0])));
    Set<Object> held = FragmentProtocol.parseRecords(answer).stream().map(JournalRecord::identity)
        .collect(Collectors.toSet());
    int dropped = 0;
    for (JournalRecord.Pending copy : copies) {
      if (!held.contains(copy.identity()) && copy.stagedAtMillis() < stagedBefore) {
        replicas.dropStale(coordinator.id(), copy.identity());
        dropped++;
      }
    }
    return dropped;
  }
}
