package io.verglas.cache.writeback.peer;

import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.writeback.FragmentNode;
import io.verglas.cache.writeback.fragment.FragmentStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The cluster's live members as fragment nodes: this node with its own {@link FragmentStore},
 * every other member through a {@link RemoteFragmentStore}. Members gone from the view are
 * absent, so their fragments read as erasures and the scrubber rebuilds them elsewhere; a
 * draining member still takes fragments (placement follows the view's members, not ownership).
 */
public final class PeerFragmentNodes {
  private final PeerTransport transport;
  private final FragmentNode self;
  private final long ceilingBytes;
  private final Map<Member, FragmentNode> remote = new ConcurrentHashMap<>();

  public PeerFragmentNodes(PeerTransport transport, FragmentStore local) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.self = new FragmentNode(transport.selfId(), local);
    this.ceilingBytes = local.ceilingBytes();
  }

  /** Every live member, this node first if the view lacks it (before joining, while leaving). */
  public Supplier<List<FragmentNode>> nodes() {
    return this::current;
  }

  private List<FragmentNode> current() {
    List<FragmentNode> nodes = new ArrayList<>();
    boolean selfListed = false;
    for (Member m : transport.members()) {
      if (m.id().equals(self.id())) {
        nodes.add(self);
        selfListed = true;
      } else {
        nodes.add(remote.computeIfAbsent(m, this::node));
      }
    }
    if (!selfListed) {
      nodes.add(self);
    }
    return nodes;
  }

  private FragmentNode node(Member member) {
    if (remote.size() > 1024) {
      remote.clear(); // views come and go; the holders are cheap to make again
    }
    return new FragmentNode(member.id(), new RemoteFragmentStore(r -> transport.send(member, r), ceilingBytes));
  }
}
