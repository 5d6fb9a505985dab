package io.verglas.bench.cache;

import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.stack.TemporaryDirectory;
import io.verglas.cache.CacheNode;
import io.verglas.cache.CacheStats;
import io.verglas.cache.ImmutableObjects;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.s3.S3Origin;
import io.verglas.cache.protection.OriginProtection;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * {@code cache}: repeated column-range reads of a Parquet table from an origin with S3-like
 * latency, four ways in one run: straight to the origin, through a Verglas cache node cold and
 * warm, and through nginx ({@code proxy_cache} + {@code slice}) warm. Then a staleness run
 * against the cache node and against nginx.
 *
 * <p>Set-up, all on 127.0.0.1: a local directory origin served over S3 by a plain cache node
 * (no metadata TTL, no immutable objects: it always answers with the current version), behind a
 * {@link LatencyProxy} that adds {@value #FIRST_BYTE_MS} ms before the first byte of every
 * response and caps each connection at {@value #STREAM_MIB_PER_S} MiB/s, as one S3 connection
 * delivers. The table is {@code 16 x 128 MiB} (quick: {@code 8 x 25 MiB}) of Parquet with 32
 * numeric columns, row groups of 8 MiB (quick: 2 MiB), written by Iceberg's writer under an
 * Iceberg data path. The workload (see {@link BenchTable}) is three projections of overlapping
 * columns over every file: trailer, footer, then each row group's column chunks, on
 * {@value #STREAMS} streams. The same {@link RangeClient} (unsigned HTTP/1.1 GETs with Range over
 * keep-alive connections, one per stream) is used for every peer; it is a lean blocking-socket
 * client, so that its own CPU time, which both servers pay alike on the shared cores, does not
 * hide the difference between them.
 *
 * <p>The cache node under test reads the origin through {@link S3Origin} (AWS SDK async), with
 * 1 MiB blocks, a DRAM tier that holds the hot set (1 GiB; quick 256 MiB) and an NVMe tier in
 * the temp directory. nginx uses 1 MiB slices.
 *
 * <p>Protocol: one direct pass; a cold pass through the node, then one through nginx; then
 * warm rounds, each a pass through the node followed by one through nginx (alternating, so load
 * from elsewhere on the machine hits both alike): 30 unreported warm-up rounds (quick: 60), so
 * each server answers about 80,000 warm requests before anything is measured (on a shared
 * 2-core machine the JVM's compilers finish the node's hot path only after 50,000 or so
 * requests: its CPU per hit falls from ~250 to ~55 us meanwhile; nginx touches its cache
 * files), and 11 measured ones (quick: 21). {@code warm_s} and {@code nginx_warm_s} are the
 * medians of the measured rounds; {@code warm_first_s}/{@code nginx_warm_first_s} report the first warm round for
 * transparency. {@code hit_p50_ms}/{@code hit_p99_ms}: 2000 reads of 64 KiB of cached ranges,
 * one at a time, all cache hits (the run fails if one of them reaches the origin).
 * {@code warm_origin_requests}: origin calls of the node during all warm rounds.
 * {@code warm_cpu_us_per_request} / {@code nginx_warm_cpu_us_per_request}: CPU time of the
 * servers (the node's event loops; nginx's processes, user + system) per request over the
 * measured rounds, and {@code warm_cpu_vs_nginx} their ratio: what each server costs, which the
 * wall-clock times show only through the noise of a shared machine.
 * {@code stale_reads}/{@code torn_reads}: see {@link StalenessRun}. nginx runs as a child
 * process, so its memory is not in {@code peak_rss_mb}; the origin, proxy, node and client are
 * in this JVM. Sampled ranges are compared with the local files after the passes.
 */
public final class CacheBenchmark implements Benchmark {
  static final String BUCKET = "warehouse";
  static final String TABLE_PREFIX = "bench/tbl/";
  static final int FIRST_BYTE_MS = 30;
  static final int STREAM_MIB_PER_S = 64;
  static final int STREAMS = 8;
  static final int BLOCK = 1 << 20;
  static final int HIT_SAMPLE = 64 * 1024;
  static final int HIT_SAMPLES = 2000;
  static final int VERIFY_SAMPLES = 300;
  static final int STALE_OBJECT_SIZE = 3 * BLOCK;
  private static final long MIB = 1L << 20;

  private record Setup(int files, long bytesPerFile, long rowGroupBytes, long dramBytes, long nvmeBytes,
      int warmupRounds, int warmRounds, int staleRounds, int concurrentRounds) {}

  private static final Setup FULL = new Setup(16, 128 * MIB, 8 * MIB, 1024 * MIB, 4096 * MIB, 30, 11, 10, 10);
  private static final Setup QUICK = new Setup(8, 25 * MIB, 2 * MIB, 256 * MIB, 1024 * MIB, 60, 21, 5, 5);

  @Override
  public String name() {
    return "cache";
  }

  @Override
  public String description() {
    return "Parquet column-range reads over an S3-like origin (30 ms, 64 MiB/s per stream): direct, "
        + "cache node cold/warm, nginx proxy_cache+slice warm; staleness of both";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    Setup setup = quick ? QUICK : FULL;
    try (TemporaryDirectory dir = TemporaryDirectory.create("verglas-bench-cache-")) {
      return run(setup, quick, dir.path());
    }
  }

  private BenchmarkReport run(Setup setup, boolean quick, Path dir) throws Exception {
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick);
    Path originRoot = Files.createDirectories(dir.resolve("origin"));
    Path bucketDir = Files.createDirectories(originRoot.resolve(BUCKET));
    progress("writing the table: %d Parquet files of %d MiB", setup.files(), setup.bytesPerFile() / MIB);
    long t0 = System.nanoTime();
    List<BenchTable.DataFile> files = BenchTable.generate(bucketDir, TABLE_PREFIX, setup.files(),
        setup.bytesPerFile(), setup.rowGroupBytes(), 20260101L);
    long tableBytes = files.stream().mapToLong(BenchTable.DataFile::length).sum();
    progress("table written: %d MiB in %.1f s", tableBytes / MIB, (System.nanoTime() - t0) / 1e9);
    List<List<BenchTable.Range>> pass = BenchTable.pass(files);
    List<BenchTable.Range> flat = pass.stream().flatMap(List::stream).toList();
    long passBytes = flat.stream().mapToLong(BenchTable.Range::length).sum();
    report.metric("table_bytes", tableBytes).metric("pass_requests", flat.size()).metric("pass_bytes", passBytes);
    report.environment("origin_first_byte_ms", FIRST_BYTE_MS)
        .environment("origin_stream_mib_per_s", STREAM_MIB_PER_S)
        .environment("streams", STREAMS)
        .environment("block_bytes", BLOCK)
        .environment("row_group_bytes", setup.rowGroupBytes())
        .environment("columns", BenchTable.COLUMNS)
        .environment("queries", BenchTable.QUERIES.toString());

    try (LocalDirectoryOrigin store = new LocalDirectoryOrigin(originRoot);
        CacheNode origin = originServer(store);
        LatencyProxy proxy = new LatencyProxy("127.0.0.1", origin.port(),
            Duration.ofMillis(FIRST_BYTE_MS), STREAM_MIB_PER_S * MIB)) {
      int proxyPort = proxy.start();
      URI slowOrigin = URI.create("http://127.0.0.1:" + proxyPort);
      for (BenchTable.DataFile f : files) {
        store.head(BUCKET, f.key()).join(); // the origin learns its ETags (MD5) before timing
      }
      Random sampler = new Random(7);
      List<BenchTable.Range> verify = Stream.generate(() -> flat.get(sampler.nextInt(flat.size())))
          .limit(VERIFY_SAMPLES).toList();

      progress("direct: one pass of %d reads (%d MiB) to the origin", flat.size(), passBytes / MIB);
      RangeClient.PassResult direct;
      try (RangeClient client = new RangeClient(slowOrigin, BUCKET, STREAMS)) {
        direct = client.pass(pass);
        verify(client, files, verify, "the origin");
      }
      progress("direct: %.2f s", direct.seconds());
      report.metric("direct_s", round(direct.seconds()));

      compare(setup, dir, slowOrigin, proxyPort, files, pass, verify, direct.seconds(), report);
      report.metric("origin_proxy_requests", proxy.requests());
    }
    return report.build();
  }

  /**
   * The cache node and nginx side by side: a cold pass each, then warm rounds that alternate
   * between them (so background load on the machine hits both alike): {@code WARMUP_ROUNDS}
   * unreported rounds (JIT compilation of the Java server, first touches of nginx's cache
   * files), then {@code WARM_ROUNDS} measured ones, of which the medians are reported. Then the
   * hit latencies and the staleness runs.
   */
  private void compare(Setup setup, Path dir, URI slowOrigin, int proxyPort, List<BenchTable.DataFile> files,
      List<List<BenchTable.Range>> pass, List<BenchTable.Range> verify, double directSeconds,
      BenchmarkReport.Builder report) throws Exception {
    Optional<Path> nginxBinary = NginxPeer.binary();
    if (nginxBinary.isEmpty()) {
      progress("nginx not found: running without the peer (apt-get install nginx)");
      report.peer("nginx_skipped", "nginx not found (apt-get install nginx)");
    }
    try (S3Origin s3 = S3Origin.builder().endpoint(slowOrigin).anonymous().maxConnections(256).build();
        CacheNode node = CacheNode.builder().allowAnonymous(true).origin(s3)
            .blockSize(BLOCK).dramCapacityBytes(setup.dramBytes())
            .nvmeDirectory(dir.resolve("nvme")).nvmeCapacityBytes(setup.nvmeBytes())
            .build().start();
        RangeClient ours = new RangeClient(node.endpoint(), BUCKET, STREAMS);
        NginxPeer nginx = nginxBinary.isPresent()
            ? new NginxPeer(nginxBinary.get(), Files.createDirectories(dir.resolve("nginx")), proxyPort, BLOCK)
            : null;
        RangeClient peer = nginx != null ? new RangeClient(nginx.endpoint(), BUCKET, STREAMS) : null) {
      progress("verglas cold pass");
      double cold = ours.pass(pass).seconds();
      progress("verglas cold: %.2f s", cold);
      node.flush();
      double nginxCold = Double.NaN;
      if (peer != null) {
        progress("nginx cold pass");
        nginxCold = peer.pass(pass).seconds();
        progress("nginx cold: %.2f s", nginxCold);
      }
      long originBefore = node.stats().originRequests();
      double[] warm = new double[setup.warmRounds()];
      double[] nginxWarm = new double[setup.warmRounds()];
      double firstWarm = Double.NaN;
      double firstNginxWarm = Double.NaN;
      long ourCpu = 0;
      long nginxCpu = 0;
      for (int round = -setup.warmupRounds(); round < setup.warmRounds(); round++) {
        long cpu0 = ServerCpu.threadsNanos(CacheNode.IO_THREAD_PREFIX);
        double w = ours.pass(pass).seconds();
        long cpu1 = ServerCpu.threadsNanos(CacheNode.IO_THREAD_PREFIX);
        long nginx0 = nginx != null ? ServerCpu.processTreeNanos(nginx.pid()) : 0;
        double n = peer != null ? peer.pass(pass).seconds() : Double.NaN;
        long nginx1 = nginx != null ? ServerCpu.processTreeNanos(nginx.pid()) : 0;
        if (round >= 0) {
          ourCpu += cpu1 - cpu0;
          nginxCpu += nginx1 - nginx0;
        }
        progress("%s round %d: verglas %.3f s, nginx %.3f s", round < 0 ? "warm-up" : "warm", round, w, n);
        if (round == -setup.warmupRounds()) {
          firstWarm = w;
          firstNginxWarm = n;
        }
        if (round >= 0) {
          warm[round] = w;
          nginxWarm[round] = n;
        }
      }
      long warmOrigin = node.stats().originRequests() - originBefore;
      report.metric("warm_first_s", round(firstWarm)).peer("nginx_warm_first_s", round(firstNginxWarm));
      verify(ours, files, verify, "the cache node");
      long originBeforeHits = node.stats().originRequests();
      long missesBeforeHits = node.stats().misses();
      double[] hits = ours.latencies(BenchTable.hotSamples(files, HIT_SAMPLES, HIT_SAMPLE, 11));
      Arrays.sort(hits);
      if (node.stats().originRequests() != originBeforeHits || node.stats().misses() != missesBeforeHits) {
        throw new IllegalStateException("Cannot report hit latencies: "
            + (node.stats().misses() - missesBeforeHits) + " of the sampled reads missed the cache");
      }
      CacheStats stats = node.stats();
      double warmMedian = median(warm);
      report.metric("cold_s", round(cold))
          .metric("warm_s", round(warmMedian))
          .metric("warm_min_s", round(Arrays.stream(warm).min().orElseThrow()))
          .metric("warm_origin_requests", warmOrigin)
          .metric("hit_p50_ms", round(percentile(hits, 0.50)))
          .metric("hit_p99_ms", round(percentile(hits, 0.99)))
          .metric("dram_hits", stats.dram().hits())
          .metric("nvme_hits", stats.nvme().hits())
          .metric("metadata_hits", stats.metadata().hits())
          .metric("block_misses", stats.misses())
          .metric("dram_bytes", stats.dram().bytes())
          .metric("nvme_bytes", stats.nvme().bytes());
      long measuredRequests = (long) setup.warmRounds() * pass.stream().mapToLong(List::size).sum();
      double ourCpuPerRequest = ourCpu / 1e3 / measuredRequests;
      report.metric("warm_cpu_us_per_request", round(ourCpuPerRequest));
      report.ratio("warm_speedup_vs_direct", directSeconds, warmMedian);
      report.ratio("cold_vs_direct", directSeconds, cold);

      progress("verglas staleness run");
      StalenessRun.Result stale = StalenessRun.run(ours, STALE_OBJECT_SIZE, setup.staleRounds(), setup.concurrentRounds());
      progress("verglas staleness: %s", stale);
      report.metric("stale_reads", stale.stale())
          .metric("torn_reads", stale.torn())
          .metric("staleness_reads", stale.reads())
          .metric("staleness_errors", stale.errors());

      if (peer != null) {
        verify(peer, files, verify, "nginx");
        double nginxMedian = median(nginxWarm);
        progress("nginx staleness run");
        StalenessRun.Result nginxStale = StalenessRun.run(peer, STALE_OBJECT_SIZE, setup.staleRounds(), setup.concurrentRounds());
        progress("nginx staleness: %s", nginxStale);
        report.metric("nginx_warm_s", round(nginxMedian))
            .peer("nginx_cold_s", round(nginxCold))
            .peer("nginx_warm_s", round(nginxMedian))
            .peer("nginx_warm_min_s", round(Arrays.stream(nginxWarm).min().orElseThrow()))
            .peer("nginx_stale_reads", nginxStale.stale())
            .peer("nginx_torn_reads", nginxStale.torn())
            .peer("nginx_staleness_reads", nginxStale.reads())
            .peer("nginx_staleness_errors", nginxStale.errors())
            .peer("nginx_version", nginxVersion(nginxBinary.get()));
        report.ratio("warm_vs_nginx", nginxMedian, warmMedian);
        if (nginxCpu > 0) {
          double nginxCpuPerRequest = nginxCpu / 1e3 / measuredRequests;
          report.peer("nginx_warm_cpu_us_per_request", round(nginxCpuPerRequest));
          report.ratio("warm_cpu_vs_nginx", nginxCpuPerRequest, ourCpuPerRequest);
        }
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The origin: a cache node that never trusts a cached ETag, over the local directory. */
  private static CacheNode originServer(LocalDirectoryOrigin store) {
    return CacheNode.builder().allowAnonymous(true).origin(store)
        .blockSize(BLOCK).dramCapacityBytes(64 * MIB)
        .metadataTtl(Duration.ZERO).immutableObjects(ImmutableObjects.NONE)
        .metadataStoreCapacityBytes(0).originProtection(OriginProtection.disabled())
        .build().start();
  }

  private static void verify(RangeClient client, List<BenchTable.DataFile> files, List<BenchTable.Range> sample,
      String who) throws Exception {
    for (BenchTable.Range range : sample) {
      BenchTable.DataFile file = files.stream().filter(f -> f.key().equals(range.key())).findFirst().orElseThrow();
      if (!Arrays.equals(client.get(range), BenchTable.localBytes(file, range))) {
        throw new IllegalStateException("Wrong bytes from " + who + " for " + range);
      }
    }
  }

  private static String nginxVersion(Path binary) {
    try {
      Process p = new ProcessBuilder(binary.toString(), "-v").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor();
      return out.replace("nginx version: ", "");
    } catch (IOException | InterruptedException e) {
      return "unknown";
    }
  }

  private static double percentile(double[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  private static void progress(String format, Object... args) {
    System.err.println("bench cache: " + String.format(format, args));
  }

  /** Runs the benchmark without the launcher: {@code [--quick] [--out FILE.json]}. */
  public static void main(String[] args) throws Exception {
    boolean quick = Arrays.asList(args).contains("--quick");
    int out = Arrays.asList(args).indexOf("--out");
    BenchmarkReport report = new CacheBenchmark().run(quick);
    if (out >= 0 && out + 1 < args.length) {
      report.write(Path.of(args[out + 1]));
    }
    System.out.println(report.toJson());
    System.exit(0);
  }
}
