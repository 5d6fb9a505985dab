package io.verglas.cache.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.cluster.TestingPorts;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three memberships in one JVM over loopback TCP. */
class MembershipTest {
  private final List<Membership> started = new ArrayList<>();

  @AfterEach
  void closeAll() {
    started.forEach(Membership::close);
  }

  @Test
  void threeNodesConvergeWithAdvertisedCapacityAndPeerPorts() {
    int[] ports = TestingPorts.free(3);
    for (int i = 0; i < 3; i++) {
      start(i, ports);
    }
    awaitMembers(Set.of("node-0", "node-1", "node-2"), started);
    ClusterView view = started.get(2).view();
    assertThat(view.member("node-1").orElseThrow())
        .isEqualTo(new Member("node-1", "127.0.0.1", 9001, (1L + 1) << 30, MemberState.ACTIVE));
    assertThat(view.shares().get("node-2")).isEqualTo(3.0 / 6);
  }

  @Test
  void gracefulLeaveAndFailureChangeTheView() {
    int[] ports = TestingPorts.free(3);
    for (int i = 0; i < 3; i++) {
      start(i, ports);
    }
    awaitMembers(Set.of("node-0", "node-1", "node-2"), started);
    started.get(2).close();
    awaitMembers(Set.of("node-0", "node-1"), started.subList(0, 2));
    long before = System.nanoTime();
    started.get(1).halt(); // no leave message: only failure detection can tell
    awaitMembers(Set.of("node-0"), started.subList(0, 1));
    System.out.printf("failure detected in %d ms%n", (System.nanoTime() - before) / 1_000_000);
  }

  @Test
  void aNodeThatComesBackUnderItsIdGetsItsKeysBack() {
    int[] ports = TestingPorts.free(3);
    for (int i = 0; i < 3; i++) {
      start(i, ports);
    }
    awaitMembers(Set.of("node-0", "node-1", "node-2"), started);
    ClusterView before = started.get(0).view();
    started.get(2).halt();
    awaitMembers(Set.of("node-0", "node-1"), started.subList(0, 2));
    for (int i = 0; i < 200; i++) {
      assertThat(started.get(0).view().owner("b", "k" + i).orElseThrow().id()).isNotEqualTo("node-2");
    }
    int[] again = ports.clone();
    again[2] = TestingPorts.free(1)[0]; // same id and seeds, another gossip port
    start(2, again);
    started.set(2, started.remove(started.size() - 1));
    awaitMembers(Set.of("node-0", "node-1", "node-2"), started);
    for (int i = 0; i < 200; i++) {
      assertThat(started.get(1).view().owner("b", "k" + i)).isEqualTo(before.owner("b", "k" + i));
    }
  }

  @Test
  void aDrainingMemberStaysInTheViewButOwnsNothing() {
    int[] ports = TestingPorts.free(2);
    start(0, ports);
    start(1, ports);
    awaitMembers(Set.of("node-0", "node-1"), started);
    started.get(1).drain();
    Eventually.await("node-1 draining in node-0's view", () -> started.get(0).view().member("node-1")
        .map(m -> m.state() == MemberState.DRAINING).orElse(false));
    for (int i = 0; i < 100; i++) {
      assertThat(started.get(0).view().owner("b", "k" + i).orElseThrow().id()).isEqualTo("node-0");
    }
  }

  @Test
  void aProcessWithoutTheSecretJoinsTheGroupButIsNoMember() {
    int[] ports = TestingPorts.free(3);
    start(0, ports);
    start(1, ports);
    Membership rogue = start(2, ports, "not-the-cluster-secret");
    awaitMembers(Set.of("node-0", "node-1"), started.subList(0, 2));
    Eventually.await("the rogue to join the JGroups group", () -> started.get(0).groupSize() == 3);
    // It counts only itself (nobody else's tag verifies under its secret).
    assertThat(ids(rogue.view())).containsExactly("node-2");
    assertThat(ids(started.get(0).view())).containsExactlyInAnyOrder("node-0", "node-1");
  }

  private void start(int i, int[] ports) {
    start(i, ports, "a-test-cluster-secret");
  }

  private Membership start(int i, int[] ports, String secret) {
    Member self = new Member("node-" + i, "127.0.0.1", 9000 + i, (i + 1L) << 30, MemberState.ACTIVE);
    Membership m = new Membership(TestingPorts.config(i, ports, secret).build(), self, v -> {});
    started.add(m);
    m.start();
    return m;
  }

  private static void awaitMembers(Set<String> ids, List<Membership> nodes) {
    for (Membership m : nodes) {
      Eventually.await(m.selfId() + " to see " + ids, () -> ids(m.view()).equals(ids), () -> m.view().toString());
    }
  }

  private static Set<String> ids(ClusterView view) {
    return view.members().stream().map(Member::id).collect(Collectors.toSet());
  }
}
