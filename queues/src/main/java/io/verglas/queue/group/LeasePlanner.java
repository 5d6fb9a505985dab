package io.verglas.queue.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The consumer-group decisions as pure functions: state and time in, new state out. The caller
 * ({@link ConsumerGroup}) reads the state object, plans, and writes the result with a
 * compare-and-swap, replanning on a lost race.
 *
 * <p>Claim order: the oldest expired, unacknowledged lease first (redelivery of a dead or slow
 * consumer's segments, under a new generation), else a new lease over the next listed segments.
 * Acknowledging marks a lease done, then moves {@code acked} over the done leases that follow it
 * without a gap, so the acknowledged position never passes an unacknowledged segment.
 */
public final class LeasePlanner {
  /** A planned change: the state to write and what the caller gets. */
  public record Plan<T>(GroupState next, T result) {}

  private LeasePlanner() {}

  /** Takes over the oldest expired unacknowledged lease, if any. */
  public static Optional<Plan<Lease>> takeExpired(GroupState state, String consumer,
      long nowMillis, long leaseMillis) {
    List<Lease> leases = new ArrayList<>(state.leases());
    for (int i = 0; i < leases.size(); i++) {
      Lease lease = leases.get(i);
      if (!lease.done() && lease.deadlineMillis() <= nowMillis) {
        long generation = state.generation() + 1;
        Lease renewed = lease.renewed(consumer, generation, nowMillis + leaseMillis);
        leases.set(i, renewed);
        return Optional.of(new Plan<>(new GroupState(state.acked(), generation, leases), renewed));
      }
    }
    return Optional.empty();
  }

  /**
   * A new lease from just after the state's tail through {@code lastAvailable} (the highest
   * segment listed after the tail, at most the caller's segments per lease); empty when nothing
   * new is listed or the group already holds {@code maxLeases} leases.
   */
  public static Optional<Plan<Lease>> takeNew(GroupState state, String consumer,
      long lastAvailable, long nowMillis, long leaseMillis, int maxLeases) {
    if (lastAvailable <= state.tail() || state.leases().size() >= maxLeases) {
      return Optional.empty();
    }
    long generation = state.generation() + 1;
    Lease lease = new Lease(state.tail() + 1, lastAvailable, consumer, generation,
        nowMillis + leaseMillis, false);
    List<Lease> leases = new ArrayList<>(state.leases());
    leases.add(lease);
    return Optional.of(new Plan<>(new GroupState(state.acked(), generation, leases), lease));
  }

  /** Acknowledges the lease if the group still holds it at its generation. */
  public static Plan<Boolean> ack(GroupState state, Lease lease) {
    List<Lease> leases = new ArrayList<>(state.leases());
    int at = indexOf(leases, lease);
    if (at < 0) {
      return new Plan<>(state, false);
    }
    leases.set(at, leases.get(at).acknowledged());
    long acked = state.acked();
    while (!leases.isEmpty() && leases.get(0).done() && leases.get(0).first() == acked + 1) {
      acked = leases.remove(0).last();
    }
    return new Plan<>(new GroupState(acked, state.generation(), leases), true);
  }

  /**
   * Moves the lease's deadline to {@code deadlineMillis} if the group still holds it: later to
   * extend it, now to release it for immediate redelivery.
   */
  public static Plan<Boolean> reschedule(GroupState state, Lease lease, long deadlineMillis) {
    List<Lease> leases = new ArrayList<>(state.leases());
    int at = indexOf(leases, lease);
    if (at < 0) {
      return new Plan<>(state, false);
    }
    leases.set(at, leases.get(at).withDeadline(deadlineMillis));
    return new Plan<>(new GroupState(state.acked(), state.generation(), leases), true);
  }

  private static int indexOf(List<Lease> leases, Lease lease) {
    for (int i = 0; i < leases.size(); i++) {
      if (leases.get(i).sameAs(lease) && !leases.get(i).done()) {
        return i;
      }
    }
    return -1;
  }
}
