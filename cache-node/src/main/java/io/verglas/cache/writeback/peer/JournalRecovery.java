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
 * the lost journal had. The coordinator checks each record before adopting it (its {@code
 * recover}) and may hand one back to be fetched again ({@link #holdBack}). Only a coordinator
 * whose journal was new on start recovers (a new node
 * finds nothing): one that kept its journal already has every record it acknowledged, and
 * adopting peers' copies could resurrect writes whose clean marks those peers missed.
 */
public final class JournalRecovery {
  private final PeerTransport transport;
  private final Set<String> asked = new HashSet<>();
  private final List<JournalRecord.Pending> heldBack = new ArrayList<>();
  private boolean roundOver;

  public JournalRecovery(PeerTransport transport) {
    this.transport = transport;
  }

  /**
   * The records the members not asked yet hold for this coordinator, and those {@linkplain
   * #holdBack held back}, oldest first; none once complete.
   */
  public synchronized List<JournalRecord.Pending> fetch() {
    Map<Object, JournalRecord.Pending> found = new LinkedHashMap<>();
    heldBack.forEach(r -> found.putIfAbsent(r.identity(), r));
    heldBack.clear();
    boolean others = false;
    for (Member member : roundOver ? List.<Member>of() : transport.members()) {
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
    roundOver |= others && transport.members().stream()
        .allMatch(m -> m.id().equals(transport.selfId()) || asked.contains(m.id()));
    List<JournalRecord.Pending> records = new ArrayList<>(found.values());
    records.sort(Comparator.comparingLong(JournalRecord.Pending::stagedAtMillis));
    return records;
  }

  /**
   * Hands back a fetched record that could not be checked yet (its check needs the origin): the
   * next {@link #fetch} returns it again, and the recovery is not complete until it is taken.
   */
  public synchronized void holdBack(JournalRecord.Pending record) {
    heldBack.add(record);
  }

  /** Whether recovery is over: every other member of the view answered once, and no record is held back. */
  public synchronized boolean complete() {
    return roundOver && heldBack.isEmpty();
  }
}
