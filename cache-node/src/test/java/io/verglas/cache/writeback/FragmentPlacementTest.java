package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import io.verglas.cache.writeback.fragment.FragmentStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fragment placement follows the cluster's rendezvous order: fragment 0 lands on the key's owner. */
class FragmentPlacementTest {
  @TempDir Path dir;

  @Test
  void theFirstNodeIsTheReadPathsOwnerAndOrderDoesNotDependOnInput() throws IOException {
    List<FragmentNode> nodes = new ArrayList<>();
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long capacity = (i + 1L) << 20;
      nodes.add(new FragmentNode("node-" + i, FragmentStore.open(dir.resolve("n" + i), capacity)));
      members.add(new Member("node-" + i, "127.0.0.1", 1000 + i, capacity, MemberState.ACTIVE));
    }
    ClusterView view = ClusterView.of(1, members);
    List<FragmentNode> reversed = new ArrayList<>(nodes);
    Collections.reverse(reversed);
    for (int k = 0; k < 50; k++) {
      String key = "t/data/" + k + ".parquet";
      List<FragmentNode> order = FragmentPlacement.order("b", key, nodes);
      assertThat(order.get(0).id()).isEqualTo(view.owner("b", key).orElseThrow().id());
      assertThat(FragmentPlacement.order("b", key, reversed)).isEqualTo(order);
    }
  }

  @Test
  void aNodeListedTwiceIsRefused() throws IOException {
    FragmentNode node = new FragmentNode("a", FragmentStore.open(dir.resolve("a"), 1 << 20));
    assertThatThrownBy(() -> FragmentPlacement.order("b", "k", List.of(node, node)))
        .hasMessage("Cannot place fragments: node a appears twice");
  }
}
