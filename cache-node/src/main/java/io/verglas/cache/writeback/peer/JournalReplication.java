package io.verglas.cache.writeback.peer;

import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.writeback.journal.JournalCodec;
import io.verglas.cache.writeback.journal.JournalRecord;
import io.verglas.cache.writeback.journal.Placement;
import io.verglas.cache.writeback.journal.WriteJournal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Copies each record of a coordinator's journal to every other live member before the
 * coordinator appends it, so that any node can serve reads of the coordinator's buffered writes
 * and a coordinator that lost its disk gets its records back ({@link JournalRecovery}).
 *
 * <p>What must succeed: a staged write's record must reach every live node holding one of its
 * fragments (they just committed their fragment, so they are reachable), else the append, and
 * with it the PUT, fails; a delete must reach at least one other node when there is one. The
 * other copies, and clean marks, are best effort: a member that misses a clean mark keeps a
 * record whose fragments are gone until the key's next clean mark ({@link
 * io.verglas.cache.writeback.journal.ReplicaJournals#append}) or {@link ReplicaReconciliation}
 * drops it. Members gone from the view are skipped.
 * Messages go out in parallel; the append waits for the answers (at most the peer timeout),
 * outside the journal's lock: a slow peer delays the appends of the keys waiting for it only.
 */
public final class JournalReplication implements WriteJournal.Replication {
  private final PeerTransport transport;

  public JournalReplication(PeerTransport transport) {
    this.transport = transport;
  }

  @Override
  public void replicate(JournalRecord record) throws IOException {
    byte[] request = FragmentProtocol.coordinator(FragmentProtocol.RECORD, transport.selfId(),
        JournalCodec.payload(record));
    Set<String> required = record instanceof JournalRecord.Staged staged
        ? staged.placements().stream().map(Placement::nodeId).collect(Collectors.toSet()) : Set.of();
    List<Member> others = transport.members().stream().filter(m -> !m.id().equals(transport.selfId())).toList();
    List<CompletableFuture<byte[]>> sent = new ArrayList<>();
    others.forEach(m -> sent.add(transport.send(m, request)));
    int reached = 0;
    IOException failure = null;
    for (int i = 0; i < others.size(); i++) {
      try {
        PeerLink.await(sent.get(i));
        reached++;
      } catch (IOException e) {
        if (required.contains(others.get(i).id())) {
          failure = new IOException("Cannot replicate the journal record of " + record.identity() + " to node "
              + others.get(i).id() + ", which holds one of its fragments: " + e.getMessage(), e);
        }
      }
    }
    if (failure == null && record instanceof JournalRecord.Deleted && reached == 0 && !others.isEmpty()) {
      failure = new IOException("Cannot replicate the delete of " + record.identity() + ": no other node answered");
    }
    if (failure != null) {
      throw failure;
    }
  }
}
