package io.verglas.cache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster read path: own tiers, then the owner, then the origin. */
class ClusterReadsTest {
  private static final Random RANDOM = new Random(31);

  @TempDir
  Path root;

  @Test
  void aNonOwnerReadsTheBlockFromItsOwnerWhichFillsOnce() throws Exception {
    try (TestingCluster cluster = new TestingCluster(root, 3, Duration.ofSeconds(5))) {
      String key = cluster.keyOwnedBy(0, "data/peer-");
      byte[] data = bytes(2 * TestingCluster.BLOCK + 1000); // three blocks
      cluster.put(1, key, data);

      assertThat(cluster.get(1, key)).isEqualTo(data);
      assertThat(cluster.origins.get(0).rangeReads.get()).isEqualTo(3);
      assertThat(cluster.origins.get(1).rangeReads.get()).isZero();
      assertThat(cluster.nodes.get(1).cluster().peerHits()).isEqualTo(3);
      assertThat(cluster.nodes.get(0).cluster().servedToPeers()).isEqualTo(3);

      assertThat(cluster.get(2, key)).isEqualTo(data); // the owner's tiers serve it: no new fill
      assertThat(cluster.originReads()).isEqualTo(3);
      assertThat(cluster.get(0, key)).isEqualTo(data);
      assertThat(cluster.originReads()).isEqualTo(3);

      String report = adminGet(cluster.nodes.get(1).adminEndpoint().resolve("/cluster"));
      assertThat(report).contains("\"nodeId\":\"node-1\"", "\"peerHits\":3", "\"id\":\"node-2\"",
          "\"share\":0.333", "\"state\":\"ACTIVE\"", "\"capacityBytes\":" + TestingCluster.CAPACITY);
      String metrics = adminGet(cluster.nodes.get(1).adminEndpoint().resolve("/metrics"));
      assertThat(metrics).contains("verglas_cache_cluster_members 3\n",
          "verglas_cache_cluster_peer_hits_total 3\n", "verglas_cache_cluster_peer_fallbacks_total 0\n",
          "verglas_cache_cluster_capacity_bytes " + TestingCluster.CAPACITY + "\n",
          "# TYPE verglas_cache_cluster_own_share gauge\nverglas_cache_cluster_own_share 0.333");
      assertThat(adminGet(cluster.nodes.get(0).adminEndpoint().resolve("/metrics")))
          .contains("verglas_cache_cluster_served_to_peers_total 6\n");
    }
  }

  private static String adminGet(java.net.URI uri) throws Exception {
    java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(uri).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  @Test
  void aStampedeOfColdReadsOverThreeNodesFillsFromTheOriginOnce() throws Exception {
    try (TestingCluster cluster = new TestingCluster(root, 3, Duration.ofSeconds(10))) {
      String key = "data/stampede.bin";
      byte[] data = bytes(TestingCluster.BLOCK);
      cluster.put(0, key, data);
      int owner = cluster.owner(key);
      CompletableFuture<Void> gate = cluster.origins.get(owner).closeGate();
      ExecutorService pool = Executors.newFixedThreadPool(100);
      try {
        List<CompletableFuture<byte[]>> reads = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          int node = i % 3;
          reads.add(CompletableFuture.supplyAsync(() -> cluster.get(node, key), pool));
        }
        // All 100 wait: each node's first miss loads, the others join it (99 joins in all,
        // the non-owners' single peer requests among the owner's).
        io.verglas.cache.awareness.Eventually.await("99 reads to join a load in flight",
            () -> cluster.nodes.stream().mapToLong(n -> n.stats().coalescedMisses()).sum() == 99);
        gate.complete(null);
        for (CompletableFuture<byte[]> read : reads) {
          assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo(data);
        }
      } finally {
        gate.complete(null);
        pool.shutdownNow();
      }
      assertThat(cluster.originReads()).as("origin range reads over the three nodes").isEqualTo(1);
      System.out.printf("stampede: 100 reads, %d origin fill(s), peer hits %d + %d%n", cluster.originReads(),
          cluster.nodes.get((owner + 1) % 3).cluster().peerHits(), cluster.nodes.get((owner + 2) % 3).cluster().peerHits());
    }
  }

  @Test
  void readsFallThroughToTheOriginWhenTheOwnerStopsAnsweringMidTransfer() throws Exception {
    Duration peerTimeout = Duration.ofMillis(300);
    try (TestingCluster cluster = new TestingCluster(root, 3, peerTimeout)) {
      String hung = cluster.keyOwnedBy(0, "data/hung-");
      String stopped = cluster.keyOwnedBy(0, "data/stopped-");
      byte[] data = bytes(TestingCluster.BLOCK + 10);
      cluster.put(0, hung, data);
      cluster.put(0, stopped, data);
      CompletableFuture<Void> gate = cluster.origins.get(0).closeGate(); // the owner hangs
      try {
        long start = System.nanoTime();
        assertThat(cluster.get(1, hung)).isEqualTo(data);
        long hungMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(cluster.nodes.get(1).cluster().peerFallbacks()).isGreaterThanOrEqualTo(1);

        // The owner's peer listener goes away while a request is in flight.
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> cluster.get(2, stopped));
        io.verglas.cache.awareness.Eventually.await("the owner to start filling",
            () -> cluster.origins.get(0).rangeReads.get() >= 3);
        start = System.nanoTime();
        cluster.nodes.get(0).cluster().stopServingPeers();
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(data);
        long stoppedMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(cluster.nodes.get(2).cluster().peerFallbacks()).isGreaterThanOrEqualTo(1);
        assertThat(cluster.get(1, stopped)).isEqualTo(data); // listener gone: refused, then origin
        System.out.printf("fall-through: hung owner %d ms (peer timeout %d ms), stopped owner %d ms%n",
            hungMillis, peerTimeout.toMillis(), stoppedMillis);
        assertThat(hungMillis).isLessThan(5_000);
      } finally {
        gate.complete(null);
      }
    }
  }

  private static byte[] bytes(int length) {
    byte[] data = new byte[length];
    RANDOM.nextBytes(data);
    return data;
  }
}
