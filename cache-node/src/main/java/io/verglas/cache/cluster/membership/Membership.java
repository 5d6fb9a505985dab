package io.verglas.cache.cluster.membership;

import io.verglas.cache.cluster.ClusterConfig;
import io.verglas.cache.cluster.ClusterSecret;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.util.Util;

/**
 * This node's membership in the cache cluster, over JGroups: joins through the configured seeds,
 * and keeps the current {@link ClusterView} (members with their advertised peer endpoint and
 * capacity, see {@link MemberAddress}).
 *
 * <p>Design: JGroups' group membership service installs a new view on join, graceful leave
 * ({@link #close()}) and on a verified suspicion (see {@link JGroupsStack}); each installed view
 * is turned into a {@link ClusterView} at once, and readers take the current one with one
 * volatile read. Draining is the only state that changes during a member's life: a draining
 * node broadcasts a one-byte message, and again after every view change so that joiners learn
 * it; a member that leaves drops out of the draining set.
 *
 * <p>Failures: a node that cannot reach any seed forms a cluster of its own and merges
 * (MERGE3) when the others become reachable. Listeners run on JGroups' thread and must be quick.
 */
public final class Membership implements AutoCloseable {
  /** Wire format of broadcasts: version, then the message type. */
  private static final byte WIRE_VERSION = 1;
  private static final byte DRAINING = 1;

  private final ClusterConfig config;
  private final Member self;
  private final Consumer<ClusterView> listener;
  private final ClusterSecret secret;
  private final Set<String> draining = ConcurrentHashMap.newKeySet();
  private volatile ClusterView view = ClusterView.empty();
  private volatile boolean selfDraining;
  /** Guards view rebuilding; not {@code this}: JGroups delivers the last view while close() waits. */
  private final Object viewLock = new Object();
  private volatile boolean closed;
  private volatile JChannel channel;

  /** {@code self}: what this node advertises; {@code listener} is told of every new view. */
  public Membership(ClusterConfig config, Member self, Consumer<ClusterView> listener) {
    this.config = config;
    this.self = self;
    this.listener = listener;
    this.secret = new ClusterSecret(config.secret());
  }

  /** Joins the cluster (or founds it when no seed answers within the join timeout). */
  public synchronized void start() {
    if (channel != null) {
      throw new IllegalStateException("Cannot start cluster membership twice");
    }
    try {
      JChannel ch = new JChannel(JGroupsStack.of(config));
      ch.addAddressGenerator(() -> MemberAddress.of(self, secret));
      ch.setName(self.id());
      ch.setDiscardOwnMessages(true);
      ch.setReceiver(new Receiver() {
        @Override
        public void viewAccepted(View installed) {
          install(installed);
        }

        @Override
        public void receive(Message msg) {
          onMessage(msg);
        }
      });
      channel = ch;
      ch.connect(config.clusterName());
    } catch (Exception e) {
      close();
      throw new IllegalStateException("Cannot join cache cluster " + config.clusterName() + " on "
          + config.bindHost() + ":" + config.gossipPort() + ": " + e.getMessage(), e);
    }
  }

  public ClusterView view() {
    return view;
  }

  /** Processes in the JGroups group, members or not (those without the secret are not). */
  int groupSize() {
    JChannel ch = channel;
    View installed = ch == null ? null : ch.getView();
    return installed == null ? 0 : installed.size();
  }

  public String selfId() {
    return self.id();
  }

  /**
   * Stops owning keys (the others' placement skips this node) while still serving peers; leave
   * with {@link #close()} once the successors are warm.
   */
  public void drain() {
    selfDraining = true;
    draining.add(self.id());
    rebuild(channel == null ? null : channel.getView());
    announceDraining();
  }

  private void install(View installed) {
    rebuild(installed);
    if (selfDraining) {
      announceDraining();
    }
  }

  private void rebuild(View installed) {
    synchronized (viewLock) {
      if (installed != null && !closed) {
        view = build(installed);
        listener.accept(view);
      }
    }
  }

  private ClusterView build(View installed) {
    List<Member> members = new ArrayList<>();
    Set<String> present = ConcurrentHashMap.newKeySet();
    for (Address address : installed.getMembers()) {
      Member m = MemberAddress.parse(address, MemberState.ACTIVE, secret);
      if (m != null) {
        present.add(m.id());
        members.add(draining.contains(m.id()) ? m.withState(MemberState.DRAINING) : m);
      }
    }
    draining.retainAll(present);
    return ClusterView.of(installed.getViewId().getId(), dedupe(members));
  }

  /** A restarted node may briefly appear twice (old address not yet removed): keep the newest. */
  private static List<Member> dedupe(List<Member> members) {
    java.util.Map<String, Member> byId = new java.util.LinkedHashMap<>();
    for (Member m : members) {
      byId.put(m.id(), m);
    }
    return new ArrayList<>(byId.values());
  }

  private void onMessage(Message msg) {
    byte[] body = msg.getArray();
    if (body == null || msg.getLength() < 2 || body[msg.getOffset()] != WIRE_VERSION) {
      return; // another version's broadcast: ignore rather than misread
    }
    if (body[msg.getOffset() + 1] == DRAINING) {
      Member sender = MemberAddress.parse(msg.getSrc(), MemberState.DRAINING, secret);
      if (sender != null && draining.add(sender.id())) {
        rebuild(channel.getView());
      }
    }
  }

  private void announceDraining() {
    JChannel ch = channel;
    if (ch == null || !ch.isConnected()) {
      return;
    }
    try {
      ch.send(new BytesMessage(null, new byte[] {WIRE_VERSION, DRAINING}));
    } catch (Exception e) {
      // the next view change announces again
    }
  }

  /** Leaves gracefully: the others install a view without this node at once. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    if (channel != null) {
      channel.close();
      channel = null;
    }
    view = ClusterView.empty();
  }

  /**
   * Stops without leaving, as a crashed process would: the others notice only through failure
   * detection. For failure tests.
   */
  public synchronized void halt() {
    closed = true;
    if (channel != null) {
      try {
        Util.shutdown(channel);
      } catch (Exception e) {
        channel.close();
      }
      channel = null;
    }
    view = ClusterView.empty();
  }
}
