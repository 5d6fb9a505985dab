package io.verglas.cache.cluster.membership;

import io.verglas.cache.cluster.ClusterConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.FRAG2;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;

/**
 * The JGroups protocol stack, built in code: a stack read from an XML file by name breaks in
 * shaded jars and hides its settings from our config. It is JGroups' own {@code tcp.xml} minus
 * flow control and state transfer (membership messages are tiny), with timeouts derived from
 * {@link ClusterConfig#failureTimeout()}: FD_SOCK2 notices a closed process at once (its socket
 * closes), FD_ALL3 notices a hung or partitioned one after the timeout, VERIFY_SUSPECT2 confirms
 * before the coordinator removes it; MERGE3 heals partitions.
 */
final class JGroupsStack {
  private JGroupsStack() {}

  static List<Protocol> of(ClusterConfig config) {
    InetAddress bind = address(config.bindHost());
    long timeout = config.failureTimeout().toMillis();
    List<Protocol> stack = new ArrayList<>();
    stack.add(new TCP().setBindAddress(bind).setBindPort(config.gossipPort()).setPortRange(0));
    stack.add(new TCPPING().setInitialHosts(resolved(config.seeds())).setPortRange(0));
    stack.add(new MERGE3().setMinInterval(Math.max(500, timeout / 2)).setMaxInterval(Math.max(1000, timeout)));
    stack.add(new FD_SOCK2().setBindAddress(bind).setOffset(ClusterConfig.FAILURE_DETECTION_PORT_OFFSET)
        .setPortRange(ClusterConfig.FAILURE_DETECTION_PORT_RANGE));
    stack.add(new FD_ALL3().setTimeout(timeout).setInterval(Math.max(50, timeout / 4)));
    stack.add(new VERIFY_SUSPECT2().setTimeout(Math.max(50, timeout / 4)));
    stack.add(new NAKACK2().setValue("use_mcast_xmit", false));
    stack.add(new UNICAST3());
    stack.add(new STABLE());
    stack.add(new GMS().setJoinTimeout(Math.max(500, timeout / 2)).setLeaveTimeout(Math.max(500, timeout / 2))
        .setValue("print_local_addr", false));
    stack.add(new FRAG2());
    return stack;
  }

  private static List<InetSocketAddress> resolved(List<InetSocketAddress> seeds) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (InetSocketAddress seed : seeds) {
      out.add(new InetSocketAddress(address(seed.getHostString()), seed.getPort()));
    }
    return out;
  }

  private static InetAddress address(String host) {
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("Cannot resolve cluster address " + host + ": " + e.getMessage(), e);
    }
  }
}
