package io.verglas.bench.cluster;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.cache.LatencyProxy;
import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.cache.CacheNode;
import io.verglas.cache.ImmutableObjects;
import io.verglas.cache.cluster.process.ChildClusterNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.protection.OriginProtection;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code cluster}: three cache nodes in one cache cluster against one node of the same size, on
 * a latency-injected origin, with a working set twice one node's DRAM ceiling (so it fits in the
 * three nodes together, not in one).
 *
 * <p>Set-up, all on 127.0.0.1: in this JVM a local directory origin served over S3 by a plain
 * cache node, behind a {@link LatencyProxy} adding {@value #FIRST_BYTE_MS} ms before each
 * response's first byte; objects of one 1 MiB block each. The nodes under test are processes
 * of their own ({@link ClusterNodes}) reading the origin through the proxy, with a DRAM tier of
 * {@code dram} bytes and no NVMe tier; the cluster's nodes also keep standby copies of other
 * owners' hot blocks within {@link #standbyBudget} of heap each (the single node has none: it
 * has no peers to keep them for).
 *
 * <p>Metrics. {@code cluster_hit_rate} / {@code single_node_hit_rate}: after two passes over the
 * working set, the share of random reads (spread over the nodes) that did not reach the origin
 * (block reads the origin served, counted by the origin's server; the objects are immutable by
 * contract, as Iceberg's data files are, so a node resolves an object's ETag once and never
 * revalidates it). {@code origin_fills_per_block}: 100 concurrent reads of one cold object
 * spread over the three nodes, block reads the origin served for it. {@code
 * peer_hit_p50_ms}/{@code p99}: a read through a node that does not own the object, of an
 * object its owner holds. {@code failed_reads_during_kill}: reads through the two other nodes
 * while one node's process is killed with SIGKILL. {@code rejoin_hit_rate}: the working set
 * re-read right after the killed node comes back under its id with an empty cache. {@code
 * peak_rss_mb_per_node}: each cluster node's peak resident set (VmHWM; for the killed node, the
 * higher of its two processes), {@code peak_rss_mb} the highest of them.
 */
public final class ClusterBenchmark implements Benchmark {
  static final int FIRST_BYTE_MS = 20;
  static final int BLOCK = 1 << 20;
  static final int NODES = 3;
  static final String BUCKET = "bench";
  static final int STAMPEDE_READS = 100;
  static final String PEER_HITS = "verglas_cache_cluster_peer_hits_total";
  static final String PEER_FALLBACKS = "verglas_cache_cluster_peer_fallbacks_total";
  static final String STANDBY_FILLS = "verglas_cache_cluster_hot_replica_fills_total";
  static final String STANDBY_TAKEN = "verglas_cache_cluster_hot_replicas_taken_total";

  @Override
  public String name() {
    return "cluster";
  }

  @Override
  public String description() {
    return "Cache cluster of three nodes vs one node of the same size: hit rates on a working set "
        + "twice one node's DRAM, stampede fills, peer-hit latency, a kill and a rejoin";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    long dram = (quick ? 24L : 96L) << 20;
    int objects = (int) (2 * dram / BLOCK);
    int reads = quick ? 600 : 3000;
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .environment("nodes", NODES).environment("node_dram_bytes", dram)
        .environment("working_set_objects", objects).environment("object_bytes", BLOCK)
        .environment("origin_first_byte_ms", FIRST_BYTE_MS).environment("measured_reads", reads)
        .environment("hot_replica_bytes", standbyBudget(dram))
        .environment("process", "each node a JVM of its own (" + ChildClusterNode.class.getSimpleName()
            + ", -Xmx256m); kill = SIGKILL; the origin and its latency proxy in the bench JVM");
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-bench-cluster-");
        LocalDirectoryOrigin store = new LocalDirectoryOrigin(dir.path().resolve("origin"));
        CacheNode originServer = originServer(store);
        LatencyProxy proxy = new LatencyProxy("127.0.0.1", originServer.port(),
            Duration.ofMillis(FIRST_BYTE_MS), 512L << 20)) {
      URI origin = URI.create("http://127.0.0.1:" + proxy.start());
      ObjectReads data = ObjectReads.create(store, BUCKET, objects + 64 + 200, BLOCK);
      // block reads the origin served (GETs), not the HEADs that resolve a node's ETags
      Counter originRequests = () -> {
        var stats = originServer.stats();
        return stats.hits() + stats.misses() + stats.coalescedMisses();
      };
      double single;
      try (ClusterNodes one = new ClusterNodes(origin, 1, dram, BLOCK, 0, dir.path())) {
        single = hitRate(one, data, objects, reads, originRequests);
        report.metric("single_node_hit_rate", round(single));
      }
      try (ClusterNodes cluster = new ClusterNodes(origin, NODES, dram, BLOCK, standbyBudget(dram), dir.path())) {
        cluster.awaitMembers(NODES, Duration.ofSeconds(60));
        double clustered = hitRate(cluster, data, objects, reads, originRequests);
        report.metric("cluster_hit_rate", round(clustered))
            .ratio("cluster_vs_single_node_hit_rate", clustered, single);
        report.metric("origin_fills_per_block", stampede(cluster, data, objects, originRequests));
        double[] peer = peerHits(cluster, data, objects + 1, 64);
        report.metric("peer_hit_p50_ms", round(peer[0])).metric("peer_hit_p99_ms", round(peer[1]));
        report.metric("standby_copies_before_kill", sum(cluster, STANDBY_TAKEN));
        report.metric("failed_reads_during_kill", readsDuringKill(cluster, data, objects));
        report.metric("rejoin_hit_rate", round(rejoin(cluster, data, objects, originRequests)));
        report.metric("peer_hits", sum(cluster, PEER_HITS))
            .metric("peer_fallbacks", sum(cluster, PEER_FALLBACKS))
            .metric("standby_fills", sum(cluster, STANDBY_FILLS));
        List<Long> rss = cluster.peakRssMb();
        report.metric("peak_rss_mb_per_node", rss).metric("peak_rss_mb", Collections.max(rss));
      }
    }
    return report.build();
  }

  /**
   * Each cluster node's standby budget: its share of a second copy of the working set (twice
   * one node's DRAM over the nodes), i.e. a replication factor of two for a hot set as large as
   * the working set. Memory on top of the DRAM tier, which {@code peak_rss_mb} shows.
   */
  static long standbyBudget(long dram) {
    return 2 * dram / NODES;
  }

  /** Two warming passes over the working set, then {@code reads} random reads: the share not reaching the origin. */
  private static double hitRate(ClusterNodes nodes, ObjectReads data, int objects, int reads,
      Counter origin) throws Exception {
    Random random = new Random(11);
    for (int pass = 0; pass < 2; pass++) {
      for (int o = 0; o < objects; o++) {
        data.read(nodes.node(random.nextInt(nodes.size())).endpoint(), o);
      }
    }
    long before = origin.count();
    for (int r = 0; r < reads; r++) {
      data.read(nodes.node(r % nodes.size()).endpoint(), random.nextInt(objects));
    }
    return 1.0 - (double) (origin.count() - before) / reads;
  }

  /** {@value #STAMPEDE_READS} concurrent reads of one cold object over the nodes: origin requests. */
  private static long stampede(ClusterNodes nodes, ObjectReads data, int object, Counter origin)
      throws Exception {
    long before = origin.count();
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      List<Future<?>> reads = new ArrayList<>();
      for (int i = 0; i < STAMPEDE_READS; i++) {
        URI node = nodes.node(i % nodes.size()).endpoint();
        reads.add(pool.submit(() -> {
          data.read(node, object);
          return null;
        }));
      }
      for (Future<?> read : reads) {
        read.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return origin.count() - before;
  }

  /** Latencies of reads through a non-owner of objects the owner just read: {p50, p99} ms. */
  private static double[] peerHits(ClusterNodes nodes, ObjectReads data, int first, int samples)
      throws Exception {
    double[] millis = new double[samples];
    for (int s = 0; s < samples; s++) {
      int object = first + s;
      String owner = nodes.node(0).view().owner(BUCKET, ObjectReads.key(object)).orElseThrow().id();
      int ownerIndex = Integer.parseInt(owner.substring("node-".length()));
      data.read(nodes.node(ownerIndex).endpoint(), object);
      URI other = nodes.node((ownerIndex + 1) % nodes.size()).endpoint();
      long start = System.nanoTime();
      data.read(other, object);
      millis[s] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(millis);
    return new double[] {millis[samples / 2], millis[Math.min(samples - 1, (int) (samples * 0.99))]};
  }

  /** Reads through nodes 1 and 2 on two threads while node 3 is killed: the reads that failed. */
  private static long readsDuringKill(ClusterNodes nodes, ObjectReads data, int objects)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong failed = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        URI node = nodes.node(t).endpoint();
        Random random = new Random(t);
        readers.add(pool.submit(() -> {
          while (!stop.get()) {
            try {
              data.read(node, random.nextInt(objects));
            } catch (Exception e) {
              failed.incrementAndGet();
            }
          }
          return null;
        }));
      }
      Thread.sleep(500);
      nodes.kill(NODES - 1);
      nodes.awaitMembers(NODES - 1, Duration.ofSeconds(30));
      Thread.sleep(500);
      stop.set(true);
      for (Future<?> reader : readers) {
        reader.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return failed.get();
  }

  /** The killed node back under its id, empty: the share of a re-read of the working set that did not reach the origin. */
  private static double rejoin(ClusterNodes nodes, ObjectReads data, int objects, Counter origin)
      throws Exception {
    nodes.start(NODES - 1);
    nodes.awaitMembers(NODES, Duration.ofSeconds(60));
    long before = origin.count();
    for (int o = 0; o < objects; o++) {
      data.read(nodes.node(o % nodes.size()).endpoint(), o);
    }
    return 1.0 - (double) (origin.count() - before) / objects;
  }

  /** A counter summed over the running nodes (the killed node's first process took its own along). */
  private static long sum(ClusterNodes nodes, String metric) {
    long total = 0;
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.node(i) != null) {
        total += nodes.node(i).metric(metric);
      }
    }
    return total;
  }

  private static CacheNode originServer(LocalDirectoryOrigin store) {
    return CacheNode.builder().allowAnonymous(true).origin(store)
        .blockSize(BLOCK).dramCapacityBytes(16L << 20)
        .metadataTtl(Duration.ZERO).immutableObjects(ImmutableObjects.NONE)
        .metadataStoreCapacityBytes(0).originProtection(OriginProtection.disabled())
        .build().start();
  }

  private static double round(double value) {
    return Math.round(value * 1000.0) / 1000.0;
  }

  @FunctionalInterface
  interface Counter {
    long count();
  }
}
