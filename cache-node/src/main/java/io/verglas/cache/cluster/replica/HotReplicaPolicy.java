package io.verglas.cache.cluster.replica;

import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import java.util.List;

/**
 * Which blocks get standby copies, and where: the policy half of hot replication (the mechanism
 * is {@link HotReplicas}).
 *
 * <p>A block is hot once its owner has been asked for it {@code minFrequency} times recently (the
 * block cache's aging frequency sketch counts the asks). The owner offers it to its successors
 * when the count reaches {@code minFrequency} and again at each doubling after that, so an offer
 * lost to a full budget or a view change is repeated while the block stays hot, at a cost of a
 * few offers per block rather than one per read. The successors are the next {@code replicas}
 * members in the key's rendezvous order: exactly the members that become its owner if the owner
 * goes, so a dead owner's hot blocks are already where the reads go next.
 *
 * @param replicas successors that keep a copy; 0 = none
 * @param minFrequency asks after which a block counts as hot (at least 1)
 */
public record HotReplicaPolicy(int replicas, int minFrequency) {
  /** Hot at the second ask: the cache's admission treats a block asked for twice as worth keeping. */
  public static final int DEFAULT_MIN_FREQUENCY = 2;

  public HotReplicaPolicy {
    if (replicas < 0 || minFrequency < 1) {
      throw new IllegalArgumentException("Invalid hot replica policy: replicas " + replicas
          + ", minimum frequency " + minFrequency);
    }
  }

  /** True if a block the owner has now been asked for {@code frequency} times should be offered. */
  public boolean offerAt(int frequency) {
    if (replicas == 0 || frequency < minFrequency || frequency % minFrequency != 0) {
      return false;
    }
    int multiple = frequency / minFrequency;
    return (multiple & (multiple - 1)) == 0; // minFrequency times a power of two
  }

  /**
   * The members that should hold a standby copy of the key's blocks when {@code self} is the
   * key's owner in {@code view}; empty when it is not (only the owner offers).
   */
  public List<Member> targets(ClusterView view, String self, String bucket, String key) {
    if (replicas == 0) {
      return List.of();
    }
    List<Member> ranked = view.ranked(bucket, key, replicas + 1);
    if (ranked.isEmpty() || !ranked.get(0).id().equals(self)) {
      return List.of();
    }
    return ranked.subList(1, ranked.size());
  }
}
