package io.verglas.cache.cluster;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.BlockFill;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockLoader;
import io.verglas.cache.block.MissPath;
import io.verglas.cache.cluster.membership.Membership;
import io.verglas.cache.cluster.peer.PeerService;
import io.verglas.cache.cluster.peer.PeerClient;
import io.verglas.cache.cluster.peer.PeerServer;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import io.verglas.cache.cluster.replica.HotReplicaPolicy;
import io.verglas.cache.cluster.replica.HotReplicas;
import io.verglas.cache.cluster.replica.StandbyBlocks;
import io.verglas.cache.s3.KeyChanges;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cache node's part in a cache cluster: membership, the peer listener and client, and the
 * read path's peer step ({@link #missPath()}).
 *
 * <p>Design: a client read's block miss (after the node's own DRAM and NVMe) computes the
 * block's owner from the current view ({@link ClusterView#owner}); if that is another node it
 * asks the owner for the exact ETag-qualified block, and the owner serves it from its own tiers
 * or fills it from the origin through its block cache's singleflight. All nodes' misses of one
 * cold block thus converge on one origin read. The local block cache's own singleflight sits in
 * front of this step, so a node sends one peer request per block however many of its clients
 * ask. The block a peer returns is a replica ({@link BlockFill#replica}): the local tiers keep
 * it only in room that displaces nothing, so a node's owned blocks never make way for copies of
 * blocks their owners still hold.
 *
 * <p>Failures: the peer step never fails a read. An owner that answers "miss", does not answer
 * within {@link ClusterConfig#peerTimeout()}, or whose connection fails or closes mid-transfer
 * sends the read to the origin (counted as a miss or a fallback). Until the node has joined, or
 * when it owns the block, or when no member is active, the read goes straight to the origin.
 * Peer requests are served with an origin-only loader, so two nodes with briefly different
 * views never forward a request in a loop.
 *
 * <p>Warmth moves with ownership: for {@link ClusterConfig#warmupInterval()} after a view
 * change, the owner of a key that another member owned in the previous view (a joiner taking
 * keys over, a survivor of a drain) asks that previous owner for a block it lacks before it
 * reads the origin ({@link #ownerFill}). Only the current owner does so, and the previous owner
 * answers from its tiers or the origin, never forwarding: at most one extra hop.
 *
 * <p>Hot blocks have standby copies ({@link HotReplicas}): the owner offers each block that
 * turns hot to the next {@link ClusterConfig#hotReplicas()} members in the key's rendezvous
 * order, which pull it into a budget of {@link ClusterConfig#hotReplicaBytes()}. Those are the
 * members that own the key next, so when the owner dies its hot blocks are already there, and
 * {@link #ownerFill} looks at the standby copies before the previous owner and the origin (and
 * a non-owner holding one reads it instead of asking the owner).
 * Standby copies live outside the block cache: a node's owned blocks never make way for them.
 *
 * <p>Consistency: blocks are keyed by ETag, so any copy of a block is exactly as good as the
 * owner's; placement decides where misses converge, not which copy is true.
 *
 * <p>Lifecycle: {@link #start} binds the peer listener first (its port is advertised), then
 * joins; {@link #close()} leaves first (the others stop routing here), then stops serving.
 */
public final class Cluster implements AutoCloseable {
  private final ClusterConfig config;
  private final long capacityBytes;
  private final EventLoopGroup group;
  private final PeerClient client;
  private final HotReplicas hot;
  private final LongAdder peerHits = new LongAdder();
  private final LongAdder peerMisses = new LongAdder();
  private final LongAdder peerFallbacks = new LongAdder();
  private final LongAdder forgetsSent = new LongAdder();
  private final LongAdder forgetsFailed = new LongAdder();
  private PeerServer server;
  private volatile Membership membership;
  /** The view before the current one and when the current one came (nanoTime). */
  private volatile Views views = new Views(ClusterView.empty(), ClusterView.empty(), 0);
  private final LongAdder warmedFromPrevious = new LongAdder();

  private record Views(ClusterView previous, ClusterView current, long changedAtNanos) {}
  private boolean closed;

  /** {@code defaultCapacityBytes}: what to advertise when the config leaves it to the node. */
  public Cluster(ClusterConfig config, long defaultCapacityBytes) {
    this.config = config;
    this.capacityBytes = config.capacityBytes() > 0 ? config.capacityBytes() : defaultCapacityBytes;
    this.group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("verglas-peer", true),
        NioIoHandler.newFactory());
    this.client = new PeerClient(group, config.secret(), config.peerTimeout());
    // a node with no budget neither keeps standby copies nor offers any (configs are uniform)
    HotReplicaPolicy policy = new HotReplicaPolicy(config.hotReplicaBytes() > 0 ? config.hotReplicas() : 0,
        HotReplicaPolicy.DEFAULT_MIN_FREQUENCY);
    this.hot = new HotReplicas(policy, new StandbyBlocks(config.hotReplicaBytes()), client,
        config.nodeId(), this::view);
  }

  /** The read path's peer step; before {@link #start} it goes straight to the origin. */
  public MissPath missPath() {
    return this::loader;
  }

  /** The owner side of hot replication: give it every DRAM hit ({@link BlockCache#onDramHit}). */
  public BlockCache.HitListener hotBlocks() {
    return hot::hit;
  }

  /** The receiver side of hot replication: the key's owner offers a standby copy of a block. */
  public void replicaOffered(BlockId id, int length) {
    hot.offer(id, length);
  }

  /**
   * The write path's announcement: every other member drops its resolved ETag of the key before
   * the write is answered (each within the peer timeout; a member that cannot be told
   * revalidates after its metadata TTL).
   */
  public KeyChanges keyChanges() {
    return (bucket, key) -> {
      List<CompletableFuture<Void>> told = new ArrayList<>();
      for (Member m : view().members()) {
        if (!m.id().equals(config.nodeId())) {
          told.add(client.forget(m.peerHost(), m.peerPort(), bucket, key)
              .whenComplete((v, e) -> (e == null ? forgetsSent : forgetsFailed).increment()));
        }
      }
      return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new)).handle((v, e) -> null);
    };
  }

  /** Serves peers from {@code own}, then joins the cluster. */
  public synchronized void start(PeerService own) {
    if (closed || server != null) {
      throw new IllegalStateException("Cannot start cluster membership: already started or closed");
    }
    server = new PeerServer(config.bindHost(), config.peerPort(), group, config.secret(), own);
    int peerPort = server.start();
    Member self = new Member(config.nodeId(), config.bindHost(), peerPort, capacityBytes, MemberState.ACTIVE);
    Membership joining = new Membership(config, self, this::viewChanged);
    joining.start();
    membership = joining;
  }

  /** The first view a node sees includes it; the one before, its keys' previous owners, did not. */
  private void viewChanged(ClusterView view) {
    Views now = views;
    ClusterView previous = now.current().members().isEmpty() ? view.without(config.nodeId()) : now.current();
    views = new Views(previous, view, System.nanoTime());
  }

  private BlockLoader loader(BlockLoader origin, long objectSize) {
    return new BlockLoader() {
      @Override
      public CompletableFuture<byte[]> load(BlockId id) {
        return fill(id).thenApply(BlockFill::data);
      }

      @Override
      public CompletableFuture<BlockFill> fill(BlockId id) {
        Membership m = membership;
        Optional<Member> owner = m == null ? Optional.empty() : m.view().owner(id.bucket(), id.key());
        if (owner.isEmpty()) {
          return origin.fill(id);
        }
        if (owner.get().id().equals(config.nodeId())) {
          return ownerFill(id, id.lengthIn(objectSize), origin).thenApply(BlockFill::fromOrigin);
        }
        byte[] standby = hot.copy(id, id.lengthIn(objectSize)); // this node is next in line for it
        return standby != null ? CompletableFuture.completedFuture(BlockFill.replica(standby))
            : fromOwner(owner.get(), id, objectSize, origin);
      }
    };
  }

  /**
   * How this node fills a block it lacks: from the key's previous owner while warmth moves
   * (this node owns the key now, another member owned it in the previous view, within the
   * warm-up interval), else, or if that fails, from {@code origin}; from a standby copy
   * before either, when this node keeps one. Used for this node's own misses and for the blocks
   * peers ask it for.
   */
  public CompletableFuture<byte[]> ownerFill(BlockId id, int length, BlockLoader origin) {
    byte[] standby = hot.copy(id, length);
    if (standby != null) {
      return CompletableFuture.completedFuture(standby);
    }
    Member previous = previousOwner(id);
    if (previous == null) {
      return origin.load(id);
    }
    return client.fetch(previous.peerHost(), previous.peerPort(), id, length).handle((bytes, error) -> {
      if (bytes != null) {
        warmedFromPrevious.increment();
        return CompletableFuture.completedFuture(bytes);
      }
      return origin.load(id);
    }).thenCompose(f -> f);
  }

  /** The key's owner in the previous view if warmth should come from it, else null. */
  private Member previousOwner(BlockId id) {
    Views v = views;
    if (System.nanoTime() - v.changedAtNanos() > config.warmupInterval().toNanos()) {
      return null;
    }
    Optional<Member> now = v.current().owner(id.bucket(), id.key());
    Optional<Member> before = v.previous().owner(id.bucket(), id.key());
    if (now.isEmpty() || before.isEmpty() || !now.get().id().equals(config.nodeId())
        || before.get().id().equals(config.nodeId())) {
      return null;
    }
    return v.current().member(before.get().id()).orElse(null); // gone: nothing to warm from
  }

  /** The owner's copy, kept as a replica by the block cache; else, as {@code origin} reads it. */
  private CompletableFuture<BlockFill> fromOwner(Member owner, BlockId id, long objectSize, BlockLoader origin) {
    CompletableFuture<byte[]> fetch;
    try {
      fetch = client.fetch(owner.peerHost(), owner.peerPort(), id, id.lengthIn(objectSize));
    } catch (RuntimeException e) {
      fetch = CompletableFuture.failedFuture(e);
    }
    return fetch.handle((bytes, error) -> {
      if (bytes != null) {
        peerHits.increment();
        return CompletableFuture.completedFuture(BlockFill.replica(bytes));
      }
      (error == null ? peerMisses : peerFallbacks).increment();
      return origin.fill(id);
    }).thenCompose(f -> f);
  }

  /** This node's member id. */
  public String nodeId() {
    return config.nodeId();
  }

  /**
   * Sends a write-back request to {@code member}'s peer endpoint (see {@link
   * PeerClient#writeBack}); completes within the peer timeout.
   */
  public CompletableFuture<byte[]> writeBack(Member member, byte[] request) {
    return client.writeBack(member.peerHost(), member.peerPort(), request);
  }

  /** The current view (empty before {@link #start} and after {@link #close}). */
  public ClusterView view() {
    Membership m = membership;
    return m == null ? ClusterView.empty() : m.view();
  }

  /** Stops owning keys while still serving peers; see {@link Membership#drain()}. */
  public void drain() {
    Membership m = membership;
    if (m == null) {
      throw new IllegalStateException("Cannot drain: the node has not joined its cluster");
    }
    m.drain();
  }

  /**
   * Stops answering peers while staying a member, as an owner that hangs or loses its peer
   * listener would: their reads fall through to the origin. For failure drills and tests.
   */
  public synchronized void stopServingPeers() {
    if (server != null) {
      server.close();
    }
  }

  /** Leaves without a goodbye, as a crashed process would (failure drills and tests). */
  public void halt() {
    Membership m = membership;
    if (m != null) {
      m.halt();
    }
  }

  /** Blocks this node read from their owner. */
  public long peerHits() {
    return peerHits.sum();
  }

  /** Peer requests the owner answered without the block (the read then went to the origin). */
  public long peerMisses() {
    return peerMisses.sum();
  }

  /** Peer requests that timed out or failed (the read then went to the origin). */
  public long peerFallbacks() {
    return peerFallbacks.sum();
  }

  /** Blocks this node, as a key's new owner, took from the key's previous owner. */
  public long warmedFromPreviousOwner() {
    return warmedFromPrevious.sum();
  }

  /** Blocks this node sent to peers. */
  public synchronized long servedToPeers() {
    return server == null ? 0 : server.served();
  }

  /** Membership, each member's ownership share and capacity, and the peer counters, JSON-able. */
  public Map<String, Object> report() {
    ClusterView view = view();
    Map<String, Double> shares = view.shares();
    List<Map<String, Object>> members = new ArrayList<>();
    for (Member m : view.members()) {
      Map<String, Object> member = new LinkedHashMap<>();
      member.put("id", m.id());
      member.put("peer", m.peerHost() + ":" + m.peerPort());
      member.put("capacityBytes", m.capacityBytes());
      member.put("state", m.state().name());
      member.put("share", shares.get(m.id()));
      member.put("self", m.id().equals(config.nodeId()));
      members.add(member);
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("cluster", config.clusterName());
    report.put("nodeId", config.nodeId());
    report.put("viewId", view.id());
    report.put("members", members);
    ClusterStats stats = stats();
    Map<String, Object> counters = new LinkedHashMap<>();
    counters.put("peerHits", stats.peerHits());
    counters.put("peerMisses", stats.peerMisses());
    counters.put("peerFallbacks", stats.peerFallbacks());
    counters.put("servedToPeers", stats.servedToPeers());
    counters.put("warmedFromPreviousOwner", stats.warmedFromPreviousOwner());
    counters.put("keyChangesSent", stats.keyChangesSent());
    counters.put("keyChangesFailed", stats.keyChangesFailed());
    counters.put("hotReplicasOffered", stats.hotReplicasOffered());
    counters.put("hotReplicasTaken", stats.hotReplicasTaken());
    counters.put("hotReplicaFills", stats.hotReplicaFills());
    counters.put("standbyBytes", stats.standbyBytes());
    report.put("counters", counters);
    return report;
  }

  /** Membership figures and peer counters, for metrics. */
  public ClusterStats stats() {
    ClusterView view = view();
    Double share = view.shares().get(config.nodeId());
    return new ClusterStats(view.id(), view.members().size(), share == null ? 0 : share,
        capacityBytes, peerHits(), peerMisses(), peerFallbacks(), servedToPeers(),
        warmedFromPrevious.sum(), forgetsSent.sum(), forgetsFailed.sum(),
        hot.offered(), hot.taken(), hot.served(), hot.standbyBytes());
  }

  /** Leaves the cluster, then stops serving peers; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    Membership m = membership;
    if (m != null) {
      m.close();
    }
    if (server != null) {
      server.close();
    }
    client.close();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
