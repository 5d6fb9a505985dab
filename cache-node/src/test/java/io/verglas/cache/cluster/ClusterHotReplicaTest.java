package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.CacheNode;
import io.verglas.cache.awareness.Eventually;
import io.verglas.cache.cluster.placement.Member;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A killed owner's hot block is served by the member that owns it next, without an origin read. */
class ClusterHotReplicaTest {
  @TempDir
  Path root;

  @Test
  void theNextOwnerServesADeadOwnersHotBlockFromItsStandbyCopy() {
    // no warm-up from previous owners: it would copy the block to a survivor by another way
    try (TestingCluster cluster = new TestingCluster(root, 3, 3, Duration.ofSeconds(5),
        b -> b.hotReplicaBytes(8L * TestingCluster.BLOCK).warmupInterval(Duration.ZERO))) {
      String key = cluster.keyOwnedBy(2, "data/hot-");
      List<Member> ranked = cluster.nodes.get(0).cluster().view().ranked(TestingCluster.BUCKET, key, 2);
      int next = index(ranked.get(1));
      int other = 1 - next;
      byte[] data = new byte[TestingCluster.BLOCK];
      new Random(5).nextBytes(data);
      cluster.put(0, key, data);
      assertThat(cluster.get(2, key)).isEqualTo(data); // the owner fills it: one origin read
      assertThat(cluster.get(2, key)).isEqualTo(data); // its second ask: hot, offered to the next
      CacheNode successor = cluster.nodes.get(next);
      Eventually.await("a standby copy at node-" + next, () -> successor.cluster().stats().hotReplicasTaken() == 1);
      int originReads = cluster.originReads();

      CacheNode owner = cluster.nodes.get(2);
      owner.cluster().halt(); // gone without a goodbye
      owner.close();
      for (int survivor : new int[] {next, other}) {
        Eventually.await("a view of 2 members at node-" + survivor,
            () -> cluster.nodes.get(survivor).cluster().view().members().size() == 2);
      }
      assertThat(cluster.get(other, key)).isEqualTo(data); // through the new owner
      assertThat(cluster.get(next, key)).isEqualTo(data);
      assertThat(cluster.originReads()).as("origin reads after the owner died").isEqualTo(originReads);
      assertThat(successor.cluster().stats().hotReplicaFills()).isEqualTo(1);
    }
  }

  private static int index(Member member) {
    return Integer.parseInt(member.id().substring("node-".length()));
  }
}
