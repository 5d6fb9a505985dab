package io.verglas.cache.writeback.peer;

import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Gets back the pending records of a coordinator that lost its journal (its disk was wiped)
 * from the copies the other members keep ({@link JournalReplication}).
 *
 * <p>Design. Recovery is one round, at start: each other live member is asked once for this
 * coordinator's records it holds ({@code RECORDS}); one that does not answer is asked again on
 * the next call, and the round is {@link #complete} once every other member of the view
 * answered (with at least one other member). Members that join after that are not asked: they
 * could only hand back copies older than the ones already taken, or stale ones. Records are
 * merged by write identity (copies of one identity differ at most in placements a repair
 * changed; the first found is kept, and a fragment it no longer finds is an erasure to the
 * reader) and handed back oldest first, so adopting them in that order rebuilds the key order
 * the lost journal had. Only a coordinator whose journal was new on start recovers (a new node
 * finds nothing): one that kept its journal already has every record it acknowledged, and
 * adopting peers' copies could resurrect writes whose clean marks those peers missed.
 */
public final class JournalRecovery {
  private final PeerTransport transport;
  private final Set<String> asked = new HashSet<>();
  private boolean complete;

  public JournalRecovery(PeerTransport transport) {
    this.transport = transport;
  }

  /** The records the members not asked yet hold for this coordinator, oldest first; none once complete. */
  public synchronized List<JournalRecord.Pending> fetch() {
    Map<Object, JournalRecord.Pending> found = new LinkedHashMap<>();
    boolean others = false;
    for (Member member : complete ? List.<Member>of() : transport.members()) {
      if (member.id().equals(transport.selfId()) || asked.contains(member.id())) {
        others |= !member.id().equals(transport.selfId());
        continue;
      }
      others = true;
      try {
        byte[] answer = PeerLink.await(transport.send(member,
            FragmentProtocol.coordinator(FragmentProtocol.RECORDS, transport.selfId(), new byte[0])));
        FragmentProtocol.parseRecords(answer).forEach(r -> found.putIfAbsent(r.identity(), r));
        asked.add(member.id());
      } catch (IOException | RuntimeException e) {
        // asked again next time
      }
    }
    complete |= others && transport.members().stream()
        .allMatch(m -> m.id().equals(transport.selfId()) || asked.contains(m.id()));
    List<JournalRecord.Pending> records = new ArrayList<>(found.values());
    records.sort(Comparator.comparingLong(JournalRecord.Pending::stagedAtMillis));
    return records;
  }

  /** Whether the round is over: every other member of the view answered once. */
  public synchronized boolean complete() {
    return complete;
  }
}
