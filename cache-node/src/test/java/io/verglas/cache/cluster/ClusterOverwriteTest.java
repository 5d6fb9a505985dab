package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Version exactness across nodes: an overwrite through one node is never answered old by another. */
class ClusterOverwriteTest {
  private static final int VERSIONS = 4;

  @TempDir
  Path root;

  @Test
  void readsThroughOtherNodesNeverSeeAnOlderVersionOnceTheOverwriteIsAnsweredNorMixedBytes() throws Exception {
    long seed = new Random().nextLong();
    System.out.println("overwrite test seed " + seed);
    Random random = new Random(seed);
    List<byte[]> versions = new ArrayList<>();
    for (int i = 0; i < VERSIONS; i++) {
      byte[] data = new byte[TestingCluster.BLOCK + 4096]; // two blocks: a mix would show
      random.nextBytes(data);
      versions.add(data);
    }
    try (TestingCluster cluster = new TestingCluster(root, 3, Duration.ofSeconds(2))) {
      String key = "tables/t/metadata/version-hint.text-like.bin"; // mutable: revalidated by TTL only
      cluster.put(0, key, versions.get(0));
      assertThat(cluster.get(1, key)).isEqualTo(versions.get(0)); // B and C hold version 0
      assertThat(cluster.get(2, key)).isEqualTo(versions.get(0));

      AtomicInteger acknowledged = new AtomicInteger(0);
      AtomicBoolean writing = new AtomicBoolean(true);
      List<CompletableFuture<Integer>> readers = new ArrayList<>();
      for (int node = 1; node <= 2; node++) {
        int reader = node;
        readers.add(CompletableFuture.supplyAsync(() -> readUntilDone(cluster, reader, key, versions, acknowledged, writing)));
      }
      for (int v = 1; v < VERSIONS; v++) {
        cluster.put(0, key, versions.get(v));
        acknowledged.set(v);
        assertThat(cluster.getRange(1, key, 0, 15)).isEqualTo(Arrays.copyOf(versions.get(v), 16));
        assertThat(cluster.getRange(2, key, 0, 15)).isEqualTo(Arrays.copyOf(versions.get(v), 16));
      }
      writing.set(false);
      int reads = 0;
      for (CompletableFuture<Integer> r : readers) {
        reads += r.get(60, TimeUnit.SECONDS);
      }
      System.out.printf("overwrite: %d versions written through node 0, %d whole reads through nodes 1 and 2%n",
          VERSIONS, reads);
      assertThat(cluster.get(1, key)).isEqualTo(versions.get(VERSIONS - 1));
      assertThat(cluster.get(2, key)).isEqualTo(versions.get(VERSIONS - 1));
    }
  }

  /** Whole reads until the writer is done; each must be one version, no older than the last answered write. */
  private static int readUntilDone(TestingCluster cluster, int node, String key, List<byte[]> versions,
      AtomicInteger acknowledged, AtomicBoolean writing) {
    int reads = 0;
    while (writing.get()) {
      int floor = acknowledged.get();
      byte[] got = cluster.get(node, key);
      int version = -1;
      for (int v = 0; v < versions.size(); v++) {
        if (Arrays.equals(got, versions.get(v))) {
          version = v;
        }
      }
      assertThat(version).as("node %d read a version (not mixed bytes)", node).isNotNegative();
      assertThat(version).as("node %d read after write %d was answered", node, floor).isGreaterThanOrEqualTo(floor);
      reads++;
    }
    return reads;
  }
}
