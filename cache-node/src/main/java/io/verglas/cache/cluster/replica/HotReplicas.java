package io.verglas.cache.cluster.replica;

import io.verglas.cache.block.BlockId;
import io.verglas.cache.cluster.peer.PeerClient;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The mechanism of hot replication: an owner offers its hot blocks (as {@link HotReplicaPolicy}
 * decides) to the members next in their rendezvous order, and a member offered a block pulls it
 * from the owner into its {@link StandbyBlocks}. When the owner dies, the member that owns its
 * keys next finds their hot blocks there instead of reading the origin; when the owner comes
 * back empty, its warm-up from the previous owner finds them there too.
 *
 * <p>Offer then pull, not push: the offer is a small frame, and the copy travels as an ordinary
 * peer read from the owner (authenticated, bounded by the peer timeout, ETag-exact), so a member
 * whose budget has no room for it, or which holds it already, costs the owner nothing more.
 * Offers are fire-and-forget: a lost one is repeated when the block's count doubles.
 */
public final class HotReplicas {
  private final HotReplicaPolicy policy;
  private final StandbyBlocks standby;
  private final PeerClient client;
  private final String self;
  private final Supplier<ClusterView> view;
  private final LongAdder offered = new LongAdder();
  private final LongAdder taken = new LongAdder();
  private final LongAdder served = new LongAdder();

  public HotReplicas(HotReplicaPolicy policy, StandbyBlocks standby, PeerClient client, String self,
      Supplier<ClusterView> view) {
    this.policy = policy;
    this.standby = standby;
    this.client = client;
    this.self = self;
    this.view = view;
  }

  /** Owner side: the block was read from this node's DRAM, its {@code frequency}-th recent ask. */
  public void hit(BlockId id, int frequency, int length) {
    if (!policy.offerAt(frequency)) {
      return;
    }
    for (Member next : policy.targets(view.get(), self, id.bucket(), id.key())) {
      offered.increment();
      client.replicate(next.peerHost(), next.peerPort(), id, length);
    }
  }

  /** Receiver side: the block's owner offers a copy; pulled from the owner if the budget allows. */
  public void offer(BlockId id, int length) {
    if (length > standby.budgetBytes() || standby.contains(id)) {
      return;
    }
    Optional<Member> owner = view.get().owner(id.bucket(), id.key());
    if (owner.isEmpty() || owner.get().id().equals(self)) {
      return; // views differ for a moment: this node owns the block itself
    }
    client.fetch(owner.get().peerHost(), owner.get().peerPort(), id, length).thenAccept(bytes -> {
      if (bytes != null && standby.put(id, bytes)) {
        taken.increment();
      }
    });
  }

  /** This node's standby copy of the block, or null. */
  public byte[] copy(BlockId id, int length) {
    byte[] bytes = standby.get(id);
    if (bytes == null || bytes.length != length) {
      return null;
    }
    served.increment();
    return bytes;
  }

  /** Offers this node sent as an owner. */
  public long offered() {
    return offered.sum();
  }

  /** Standby copies this node took. */
  public long taken() {
    return taken.sum();
  }

  /** Fills this node served from a standby copy instead of the origin or a previous owner. */
  public long served() {
    return served.sum();
  }

  public long standbyBytes() {
    return standby.bytes();
  }
}
