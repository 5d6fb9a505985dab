package io.verglas.cache.cluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.block.BlockId;
import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Which blocks get standby copies and where; and the standby budget. */
class HotReplicaPolicyTest {
  private static final String BUCKET = "b";

  @Test
  void aBlockIsOfferedWhenItTurnsHotAndAgainAtEachDoublingOnly() {
    HotReplicaPolicy policy = new HotReplicaPolicy(1, 2);
    assertThat(IntStream.rangeClosed(0, 15).filter(policy::offerAt).boxed().toList()).containsExactly(2, 4, 8);
    assertThat(IntStream.rangeClosed(0, 15).filter(new HotReplicaPolicy(0, 2)::offerAt)).isEmpty();
    assertThat(IntStream.rangeClosed(0, 15).filter(new HotReplicaPolicy(2, 3)::offerAt).boxed().toList())
        .containsExactly(3, 6, 12);
  }

  /** Property: the targets are the members that own the key next, in order, as owners die. */
  @Test
  void theTargetsAreTheNextOwnersWhenTheOwnerAndThenTheFirstTargetGo() {
    Random random = new Random(17);
    for (int trial = 0; trial < 300; trial++) {
      ClusterView view = view(3 + random.nextInt(4), random);
      String key = "k/" + random.nextInt(1_000_000);
      String owner = view.owner(BUCKET, key).orElseThrow().id();
      HotReplicaPolicy policy = new HotReplicaPolicy(2, 2);
      List<Member> targets = policy.targets(view, owner, BUCKET, key);
      assertThat(targets).hasSize(2).extracting(Member::id).doesNotContain(owner).doesNotHaveDuplicates();
      ClusterView ownerGone = view.without(owner);
      assertThat(ownerGone.owner(BUCKET, key).orElseThrow()).isEqualTo(targets.get(0));
      assertThat(ownerGone.without(targets.get(0).id()).owner(BUCKET, key).orElseThrow()).isEqualTo(targets.get(1));
      for (Member notOwner : view.members()) {
        if (!notOwner.id().equals(owner)) {
          assertThat(policy.targets(view, notOwner.id(), BUCKET, key)).as("only the owner offers").isEmpty();
        }
      }
    }
  }

  @Test
  void standbyCopiesStayWithinTheirBudgetDroppingTheLeastRecentlyUsed() {
    StandbyBlocks standby = new StandbyBlocks(3000);
    assertThat(standby.put(id(1), new byte[1000])).isTrue();
    assertThat(standby.put(id(2), new byte[1000])).isTrue();
    assertThat(standby.put(id(3), new byte[1000])).isTrue();
    assertThat(standby.get(id(1))).isNotNull(); // used: 2 is now the least recently used
    assertThat(standby.put(id(4), new byte[1500])).isTrue();
    assertThat(standby.bytes()).isLessThanOrEqualTo(3000);
    assertThat(standby.contains(id(2))).isFalse();
    assertThat(standby.contains(id(1))).isTrue();
    assertThat(standby.contains(id(4))).isTrue();
    assertThat(standby.put(id(5), new byte[3001])).as("larger than the budget").isFalse();
    assertThat(new StandbyBlocks(0).put(id(6), new byte[1])).isFalse();
  }

  private static BlockId id(int index) {
    return new BlockId(BUCKET, "key", "etag", 1 << 20, index);
  }

  private static ClusterView view(int members, Random random) {
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      list.add(new Member("node-" + i, "127.0.0.1", 7000 + i, (1L + random.nextInt(4)) << 30, MemberState.ACTIVE));
    }
    return ClusterView.of(1, list);
  }
}
