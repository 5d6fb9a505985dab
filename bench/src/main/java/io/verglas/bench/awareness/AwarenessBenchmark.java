package io.verglas.bench.awareness;

import com.sun.net.httpserver.HttpServer;
import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.cache.LatencyProxy;
import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.cache.AwarenessStats;
import io.verglas.cache.CacheNode;
import io.verglas.cache.CacheStats;
import io.verglas.cache.awareness.AwarenessConfig;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.s3.S3Origin;
import io.verglas.cache.protection.OriginProtection;
import io.verglas.catalog.Catalogs;
import io.verglas.events.CatalogEvent;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.ChangeFeedHttpHandler;
import io.verglas.store.ObjectStoreEndpoint;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

/**
 * {@code awareness}: what following the catalog buys a cache node, against the same node
 * without it (the format-blind peer), on one table, in one run.
 *
 * <p>Set-up, all on 127.0.0.1: a local directory origin served over S3 by a plain node (it
 * always answers with the current version), reached by each node under test through its own
 * {@link LatencyProxy} ({@value #FIRST_BYTE_MS} ms to first byte, {@value #STREAM_MIB_PER_S}
 * MiB/s per connection, as in the {@code cache} benchmark; the proxy counts the node's origin
 * bytes). A writer (Iceberg's Java API, JDBC catalog on SQLite) writes straight to the origin
 * and publishes a commit event to a real change feed after each commit; the aware node follows
 * that feed, the blind node does not. Both nodes: 1 MiB blocks, a DRAM tier holding the table.
 * The table ({@link WorkingSetTable}) is partitioned, with three string columns whose chunks
 * are each over a block long.
 *
 * <p>Protocol and metrics: the writer appends one file per partition, {@code rounds} times
 * (after a first append); after each commit (once the aware node has walked it) a long-lived
 * client per node (as an engine keeps one) plans a full scan (load, plan, every file's footer)
 * through its node. Before the first measured commit each client plans {@code warmupPlans}
 * times, so that what is measured is the caches, not the JIT compilers of a young JVM.
 * {@code planning_ms_after_commit_warm} is the median over commits on the aware node;
 * {@code planning_ms_after_commit_blind} (a peer figure) on the blind node, for which each
 * commit's new metadata and new footers are cold and the rest is cached from earlier plans;
 * {@code planning_ms_cold} on the blind node just purged of everything (a cold cache).
 * {@code planning_speedup} is cold / warm, {@code planning_speedup_vs_blind_after_commit} the
 * blind node's figure / warm. Then the three-query working set runs twice
 * through both nodes; the writer compacts the table (a replace commit of Iceberg's
 * {@code RewriteFiles}) and publishes it; once the aware node has walked and prefetched it, the
 * first query wave runs again through both: {@code post_compaction_hit_rate_prefetch} /
 * {@code _no_prefetch} are the block hit rates of that wave on the aware / blind node,
 * {@code post_compaction_origin_bytes_prefetch} the bytes the aware node fetched from the origin
 * during it, {@code prefetch_bytes} what its prefetch fetched before it. Everything runs in this
 * JVM, so {@code peak_rss_mb} covers origin, proxies, both nodes and the clients.
 */
public final class AwarenessBenchmark implements Benchmark {
  static final String BUCKET = "warehouse";
  static final int FIRST_BYTE_MS = 30;
  static final int STREAM_MIB_PER_S = 64;
  static final int BLOCK = 1 << 20;
  static final String ACCESS_KEY = "bench";
  static final String SECRET_KEY = "bench-secret";
  private static final long MIB = 1L << 20;
  private static final Duration WALK_TIMEOUT = Duration.ofMinutes(5);

  private record Setup(int partitions, int rowsPerFile, int valueLength, int rounds, int warmupPlans,
      long dramBytes) {}

  private static final Setup FULL = new Setup(6, 22_000, 100, 7, 40, 1024 * MIB);
  private static final Setup QUICK = new Setup(3, 11_000, 100, 5, 25, 256 * MIB);

  @Override
  public String name() {
    return "awareness";
  }

  @Override
  public String description() {
    return "Catalog-following cache node vs the same node format-blind: planning after a commit, "
        + "first query wave after a compaction (prefetch of hot column chunks)";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    Setup setup = quick ? QUICK : FULL;
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-bench-awareness-")) {
      return run(setup, quick, dir.path());
    }
  }

  private BenchmarkReport run(Setup setup, boolean quick, Path dir) throws Exception {
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick);
    report.environment("origin_first_byte_ms", FIRST_BYTE_MS)
        .environment("origin_stream_mib_per_s", STREAM_MIB_PER_S)
        .environment("block_bytes", BLOCK)
        .environment("partitions", setup.partitions())
        .environment("rows_per_file", setup.rowsPerFile())
        .environment("commits_measured", setup.rounds())
        .environment("queries", WorkingSetTable.WORKING_SET.toString());
    Path originRoot = Files.createDirectories(dir.resolve("origin"));
    Files.createDirectories(originRoot.resolve(BUCKET));
    ChangeFeed feed = new ChangeFeed(dir.resolve("feed.jsonl"), 10_000);
    HttpServer feedServer = feedServer(feed);
    try (LocalDirectoryOrigin store = new LocalDirectoryOrigin(originRoot);
        CacheNode origin = originServer(store);
        LatencyProxy awareProxy = proxy(origin);
        LatencyProxy blindProxy = proxy(origin);
        S3Origin awareS3 = s3(awareProxy);
        S3Origin blindS3 = s3(blindProxy);
        CacheNode aware = node(awareS3, setup, AwarenessConfig.builder()
            .feedUri(URI.create("http://127.0.0.1:" + feedServer.getAddress().getPort() + "/events"))
            .warmBytesPerSecond(512 * MIB).build());
        CacheNode blind = node(blindS3, setup, null)) {
      await("the aware node following the feed", () -> aware.stats().awareness().feedConnected(), aware);
      Path db = dir.resolve("catalog.db");
      Catalog writer = catalog(db, origin.endpoint());
      WorkingSetTable data = new WorkingSetTable(setup.partitions(), setup.rowsPerFile(), setup.valueLength());
      Table table = WorkingSetTable.create(writer);
      data.appendFilePerPartition(table);
      long events = publish(feed, table, aware, 0);

      double[] warm = new double[setup.rounds()];
      double[] blindAfterCommit = new double[setup.rounds()];
      double[] cold = new double[setup.rounds()];
      long warmOriginRequests = 0;
      Catalog awareClient = catalog(db, aware.endpoint());
      Catalog blindClient = catalog(db, blind.endpoint());
      try {
        for (int i = 0; i < setup.warmupPlans(); i++) { // JIT of clients and nodes is not planning
          WorkingSetTable.plan(awareClient);
          WorkingSetTable.plan(blindClient);
        }
        for (int round = 0; round < setup.rounds(); round++) {
          data.appendFilePerPartition(table);
          events = publish(feed, table, aware, events);
          long requestsBefore = aware.stats().originRequests();
          warm[round] = planningMillis(awareClient);
          warmOriginRequests += aware.stats().originRequests() - requestsBefore;
          blindAfterCommit[round] = planningMillis(blindClient);
          blind.purge(BUCKET, "");
          cold[round] = planningMillis(blindClient);
          progress("commit %d: planning %.1f ms warm (aware), %.1f ms on the blind node after the commit,"
              + " %.1f ms cold", round + 1, warm[round], blindAfterCommit[round], cold[round]);
        }
      } finally {
        closeQuietly(awareClient);
        closeQuietly(blindClient);
      }
      double warmMedian = median(warm);
      double coldMedian = median(cold);
      double blindMedian = median(blindAfterCommit);
      report.metric("planning_ms_cold", round(coldMedian))
          .metric("planning_ms_after_commit_warm", round(warmMedian))
          .metric("planning_origin_requests_after_commit_warm", warmOriginRequests)
          .peer("planning_ms_after_commit_blind", round(blindMedian))
          .ratio("planning_speedup", coldMedian, warmMedian)
          .ratio("planning_speedup_vs_blind_after_commit", blindMedian, warmMedian);

      progress("warming the working set on both nodes (2 waves each)");
      for (int wave = 0; wave < 2; wave++) {
        wave(db, aware);
        wave(db, blind);
      }
      progress("compacting");
      data.compact(table);
      long prefetchBefore = aware.stats().awareness().prefetchBytes();
      events = publish(feed, table, aware, events);
      long prefetchBytes = aware.stats().awareness().prefetchBytes() - prefetchBefore;

      Wave prefetched = measuredWave(db, aware, awareProxy);
      Wave blindWave = measuredWave(db, blind, blindProxy);
      progress("first wave after compaction: aware %s; blind %s", prefetched, blindWave);
      AwarenessStats stats = aware.stats().awareness();
      report.metric("post_compaction_hit_rate_prefetch", round(prefetched.hitRate()))
          .metric("post_compaction_hit_rate_no_prefetch", round(blindWave.hitRate()))
          .metric("post_compaction_origin_bytes_prefetch", prefetched.originBytes())
          .metric("post_compaction_origin_bytes_no_prefetch", blindWave.originBytes())
          .metric("post_compaction_wave_s_prefetch", round(prefetched.seconds()))
          .metric("post_compaction_wave_s_no_prefetch", round(blindWave.seconds()))
          .metric("prefetch_bytes", prefetchBytes)
          .metric("replace_commits", stats.replaceCommits())
          .metric("heat_samples", stats.heatSamples())
          .metric("heat_samples_dropped", stats.heatSamplesDropped())
          .metric("files_indexed", stats.filesIndexed());
      closeQuietly(writer);
    } finally {
      feedServer.stop(0);
      feed.close();
    }
    return report.build();
  }

  /** One query wave's block reads and origin traffic on one node. */
  private record Wave(long hits, long misses, long originBytes, double seconds) {
    double hitRate() {
      return hits + misses == 0 ? 0 : (double) hits / (hits + misses);
    }
  }

  private static Wave measuredWave(Path db, CacheNode node, LatencyProxy proxy) throws Exception {
    CacheStats before = node.stats();
    long originBefore = proxy.bytesToClients();
    long t0 = System.nanoTime();
    wave(db, node);
    double seconds = (System.nanoTime() - t0) / 1e9;
    CacheStats after = node.stats();
    return new Wave(after.hits() - before.hits(), after.misses() - before.misses(),
        proxy.bytesToClients() - originBefore, seconds);
  }

  static void wave(Path db, CacheNode node) throws Exception {
    Catalog client = catalog(db, node.endpoint());
    try {
      for (WorkingSetTable.Query query : WorkingSetTable.WORKING_SET) {
        WorkingSetTable.run(client, query);
      }
    } finally {
      closeQuietly(client);
    }
  }

  /** Plans the current snapshot with a long-lived client (as an engine's), in milliseconds. */
  private static double planningMillis(Catalog client) throws Exception {
    long t0 = System.nanoTime();
    WorkingSetTable.plan(client);
    return (System.nanoTime() - t0) / 1e6;
  }

  /** Publishes the table's current commit and waits until the aware node has walked it. */
  private static long publish(ChangeFeed feed, Table table, CacheNode aware, long handled) {
    feed.append(commitEvent(table));
    long expected = handled + 1;
    await("the walk of commit " + expected, () -> {
      AwarenessStats a = aware.stats().awareness();
      return a.eventsHandled() >= expected && a.walksPending() == 0 && a.walksCompleted() >= expected;
    }, aware);
    return expected;
  }

  static CatalogEvent commitEvent(Table table) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    String metadata = ((HasTableOperations) table).operations().current().metadataFileLocation();
    String uuid = table.uuid().toString();
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshot.snapshotId()), "bench", Instant.now(),
        List.of(WorkingSetTable.NAMESPACE, WorkingSetTable.NAME), uuid, snapshot.snapshotId(),
        snapshot.parentId(), snapshot.operation(), snapshot.sequenceNumber(),
        snapshot.timestampMillis(), snapshot.summary(), metadata, 0);
  }

  static void await(String what, BooleanSupplier condition, CacheNode node) {
    long deadline = System.nanoTime() + WALK_TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot run the benchmark: timed out waiting for " + what
            + "; node stats: " + node.stats().toJson());
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted waiting for " + what, e);
      }
    }
  }

  static HttpServer feedServer(ChangeFeed feed) throws java.io.IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/events", new ChangeFeedHttpHandler(feed, 8, Duration.ofMillis(500)));
    server.setExecutor(Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "bench-feed");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return server;
  }

  /** The origin: a node that never trusts a cached ETag, over the local directory. */
  private static CacheNode originServer(LocalDirectoryOrigin store) {
    return CacheNode.builder().credentials(ACCESS_KEY, SECRET_KEY).allowAnonymous(true).origin(store)
        .blockSize(BLOCK).dramCapacityBytes(64 * MIB)
        .metadataTtl(Duration.ZERO).immutableObjects(io.verglas.cache.ImmutableObjects.NONE)
        .metadataStoreCapacityBytes(0).originProtection(OriginProtection.disabled())
        .build().start();
  }

  private static LatencyProxy proxy(CacheNode origin) {
    LatencyProxy proxy = new LatencyProxy("127.0.0.1", origin.port(), Duration.ofMillis(FIRST_BYTE_MS),
        STREAM_MIB_PER_S * MIB);
    proxy.start();
    return proxy;
  }

  private static S3Origin s3(LatencyProxy proxy) {
    return S3Origin.builder().endpoint(URI.create("http://127.0.0.1:" + proxy.port()))
        .anonymous().maxConnections(64).build();
  }

  private static CacheNode node(S3Origin origin, Setup setup, AwarenessConfig awareness) {
    CacheNode.Builder builder = CacheNode.builder().credentials(ACCESS_KEY, SECRET_KEY).origin(origin)
        .blockSize(BLOCK).dramCapacityBytes(setup.dramBytes());
    if (awareness != null) {
      builder.awareness(awareness);
    }
    return builder.build().start();
  }

  private static Catalog catalog(Path db, URI endpoint) {
    return catalog(db, endpoint, ACCESS_KEY, SECRET_KEY);
  }

  /** The JDBC catalog on {@code db} whose FileIO reaches {@code endpoint} with the given key. */
  static Catalog catalog(Path db, URI endpoint, String accessKey, String secretKey) {
    ObjectStoreEndpoint s3 = new ObjectStoreEndpoint(endpoint, "us-east-1", accessKey, secretKey, BUCKET);
    return Catalogs.load("bench", Catalogs.sqlite(db.toString(), s3.warehouse(), s3.s3FileIoProperties()));
  }

  static void closeQuietly(Catalog catalog) {
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // a client's close failing does not change the figures
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  private static void progress(String format, Object... args) {
    System.err.println("bench awareness: " + String.format(format, args));
  }
}
