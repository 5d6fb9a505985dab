package io.verglas.cache.writeback;

/**
 * Write-back on one node, as the admin endpoint shows it.
 *
 * @param dirtyObjects buffered changes not yet on the origin (writes and deletes)
 * @param dirtyBytes body bytes of the buffered writes
 * @param oldestDirtyAgeMillis age of the oldest buffered change; 0 without one
 * @param acknowledged PUTs acknowledged from buffered fragments since start
 * @param writtenThrough PUTs in scope written through instead (not enough nodes or fragments)
 * @param propagated changes applied to the origin since start
 * @param propagatedBytes body bytes written to the origin since start
 * @param propagationFailures failed attempts to apply a change since start
 * @param propagationsSuperseded changes retired without an upload since start: a later change of
 *     their key, through this node or another coordinator, replaced them
 * @param propagationsDeferred times since start a change waited for an older change of its key
 *     that another coordinator holds (it is applied once that one is retired)
 * @param propagationConflicts writes held unpropagated because someone wrote their key to the
 *     origin around the cache since they were acknowledged (resolved by a later change of the key)
 * @param fragmentsRepaired fragments rewritten by the scrubber since start
 * @param unrepairable writes the last scrub found with fewer than {@code k} healthy fragments
 * @param orphansRemoved fragments no journal record named, removed after the grace period, since start
 */
public record WriteBackStats(long dirtyObjects, long dirtyBytes, long oldestDirtyAgeMillis, long acknowledged,
    long writtenThrough, long propagated, long propagatedBytes, long propagationFailures,
    long propagationsSuperseded, long propagationsDeferred, long propagationConflicts, long fragmentsRepaired,
    long unrepairable, long orphansRemoved) {

  /**
   * This node's figures and {@code other}'s together, as for a cluster whose nodes each coordinate
   * their own writes: counts summed, the oldest unpropagated age the older of the two.
   */
  public WriteBackStats plus(WriteBackStats other) {
    return new WriteBackStats(dirtyObjects + other.dirtyObjects, dirtyBytes + other.dirtyBytes,
        Math.max(oldestDirtyAgeMillis, other.oldestDirtyAgeMillis), acknowledged + other.acknowledged,
        writtenThrough + other.writtenThrough, propagated + other.propagated,
        propagatedBytes + other.propagatedBytes, propagationFailures + other.propagationFailures,
        propagationsSuperseded + other.propagationsSuperseded, propagationsDeferred + other.propagationsDeferred,
        propagationConflicts + other.propagationConflicts, fragmentsRepaired + other.fragmentsRepaired,
        unrepairable + other.unrepairable, orphansRemoved + other.orphansRemoved);
  }
}
