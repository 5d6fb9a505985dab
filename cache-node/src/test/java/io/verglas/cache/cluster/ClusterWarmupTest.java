package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.cluster.placement.ClusterView;
import io.verglas.cache.cluster.placement.Member;
import io.verglas.cache.cluster.placement.MemberState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Warmth moves with ownership: a joiner takes the blocks it now owns from their previous owner. */
class ClusterWarmupTest {
  @TempDir
  Path root;

  @Test
  void aJoinerTakesTheBlocksItNowOwnsFromThePreviousOwnerNotTheOrigin() {
    try (TestingCluster cluster = new TestingCluster(root, 3, 2, Duration.ofSeconds(5))) {
      String key = keyTheJoinerWillOwn();
      int previous = cluster.owner(key);
      byte[] data = new byte[TestingCluster.BLOCK + 100]; // two blocks
      new Random(7).nextBytes(data);
      cluster.put(0, key, data);
      assertThat(cluster.get(1 - previous, key)).isEqualTo(data); // the previous owner fills
      assertThat(cluster.originReads()).isEqualTo(2);

      cluster.startNode();
      cluster.awaitMembers(3);
      assertThat(cluster.owner(key)).isEqualTo(2);
      assertThat(cluster.get(2, key)).isEqualTo(data);
      assertThat(cluster.get(1 - previous, key)).isEqualTo(data); // asks the new owner, which holds it now
      assertThat(cluster.originReads()).as("origin reads after the join").isEqualTo(2);
      assertThat(cluster.nodes.get(2).cluster().warmedFromPreviousOwner()).isEqualTo(2);
    }
  }

  /** A key that node-0 or node-1 owns now and node-2 will own once it joins. */
  private static String keyTheJoinerWillOwn() {
    ClusterView three = ClusterView.of(0, List.of(member(0), member(1), member(2)));
    for (int i = 0; ; i++) {
      String key = "data/joiner-" + i;
      if (three.owner(TestingCluster.BUCKET, key).orElseThrow().id().equals("node-2")) {
        return key;
      }
    }
  }

  private static Member member(int i) {
    return new Member("node-" + i, "127.0.0.1", 1, TestingCluster.CAPACITY, MemberState.ACTIVE);
  }
}
