package io.verglas.queue.group;

import java.util.Comparator;
import java.util.List;

/**
 * A consumer group's durable state: {@code acked}, the acknowledged position (every segment up
 * to and including it is acknowledged; -1 before any), the last generation handed out, and the
 * open leases in segment order. Leases tile the segments after {@code acked} without gaps.
 */
public record GroupState(long acked, long generation, List<Lease> leases) {
  public GroupState {
    leases = leases.stream().sorted(Comparator.comparingLong(Lease::first)).toList();
  }

  /** The state of a new group that starts after {@code acked}. */
  public static GroupState startingAfter(long acked) {
    return new GroupState(acked, 0, List.of());
  }

  /** The highest segment acknowledged or leased: where the next new lease starts after. */
  public long tail() {
    return leases.isEmpty() ? acked : Math.max(acked, leases.get(leases.size() - 1).last());
  }
}
