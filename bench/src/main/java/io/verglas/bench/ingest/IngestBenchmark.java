package io.verglas.bench.ingest;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.ProcessCpu;
import io.verglas.bench.ThreadCpu;
import io.verglas.bench.stack.BenchStorage;
import io.verglas.ingest.IngestServer;
import io.verglas.ingest.wal.S3SegmentStore;
import io.verglas.sdk.BatchCompression;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.wal.WalLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code ingest}: 4 concurrent Flight clients push rows of 10 columns (~100 bytes each) into one
 * table; ingest validates, group-commits into WAL segments and acknowledges after each durable
 * PUT. Peer, in the same run: PUTting the very same segment bytes straight to the same S3
 * endpoint with the same client, one PUT at a time ({@code raw_put_mb_per_s}), and as many at
 * once as ingest has lanes ({@code raw_put_parallel_mb_per_s}).
 *
 * <p>Method. The machine is shared and small, so one sample is noise: after forty warm-up
 * rounds of both sides (neither side should pay for the JIT or profit from the other's), the
 * benchmark runs five rounds of
 * "push all rows, then PUT that round's segments raw" and reports medians over the rounds,
 * ratios taken per round (each ingest round against the raw PUTs right after it). Five, not
 * three: the sequential raw PUTs wait on the origin's fsync and varied from 82 to 130 MB/s
 * between rounds of one run on this machine, so the median of three ratios still moved by a
 * tenth from run to run. It reports
 * the process CPU time, its split by thread group, the JIT's compile time and the load average
 * beside the speeds. It measures the steady state a long-running server is in: on 2 cores the
 * JIT still compiled for 1.6 s per measured round after three warm-up rounds (45 MB/s), 0.75 s
 * after ten (56 MB/s), 0.4-0.56 s after twenty (63-68 MB/s) and 0.16 s after forty (80 MB/s):
 * ingest, the S3 client, gRPC and the cache node are a lot of code for two compiler threads,
 * whose work took CPU from the pushes. The raw PUTs, bound by round trips rather than CPU, stayed
 * at 95-105 MB/s throughout. {@code -Dverglas.bench.ingest.warm-up-rounds=N} shows the cold
 * figures.
 *
 * <p>Ack latency is measured per batch from the {@code write} call, so it includes the time a
 * client waits for a free in-flight slot; {@code ack_latency_on_wire_*} measures from the moment
 * {@code write} returned, the batch handed to gRPC. Each client keeps at most 3 batches
 * unacknowledged, the way a client that cares about latency runs: measured on a quiet machine,
 * 6 gave the same throughput with twice the queueing (ack p50 224 ms vs 119 ms), 2 lost
 * throughput. Segments are flushed at 2 MiB (200 ms interval) through 4 lanes.
 *
 * <p>Two client modes, both in every round (their order alternating), each push against the raw
 * PUTs of its own segments: clients that compress their batches (the SDK's default, zstd level
 * 1; the server writes their buffers as they come), which make {@code vs_raw_put}, and clients
 * that send plain Arrow (any Flight client; the server compresses), which make
 * {@code vs_raw_put_uncompressed_clients}. The server runs in this JVM, so its CPU is the
 * process's CPU during a push minus that of the clients' threads ({@code bench-client-*}: they
 * build and compress the batches) and of the object store's (the cache node in front of the
 * local directory) and of the JIT compilers (reported apart: warm-up, not work);
 * {@code server_cpu_s_per_gb_wal} divides it by the WAL bytes written.
 * gRPC's transport threads are shared by the clients' channels and the server and count as
 * server.
 */
public final class IngestBenchmark implements Benchmark {
  private static final int CLIENTS = 4;
  private static final int BATCH_ROWS = 10_000;
  // Overridable for experiments (-Dverglas.bench.ingest.in-flight=8 ...); the report says which.
  private static final int IN_FLIGHT = Integer.getInteger("verglas.bench.ingest.in-flight", 3);
  private static final int LANES = Integer.getInteger("verglas.bench.ingest.lanes", 4);
  private static final Duration FLUSH_INTERVAL = Duration.ofMillis(
      Long.getLong("verglas.bench.ingest.flush-interval-ms", 200));
  private static final long FLUSH_BYTES =
      Long.getLong("verglas.bench.ingest.flush-bytes", 2L << 20);
  private static final String TOKEN = "bench-token";
  private static final int WARM_UP_ROUNDS =
      Integer.getInteger("verglas.bench.ingest.warm-up-rounds", 40);
  private static final int ROUNDS = Integer.getInteger("verglas.bench.ingest.rounds", 5);
  /** Thread groups that are the bench's clients, not the server. */
  private static final String CLIENT_THREADS = "bench-client";
  /**
   * Thread groups of the object store (the cache node over a local directory); groups lose
   * their digits, so the cache node's {@code verglas-s3-io-1} is {@code verglas-s-io}.
   */
  private static final List<String> ORIGIN_THREADS = List.of("verglas-s-", "verglas-local-origin",
      "verglas-origin", "verglas-nvme", "verglas-heat", "verglas-metadata");
  /** The JIT compilers' group: reported apart ({@code jit_compile_ms_per_round}), not work. */
  private static final List<String> JIT_THREADS = List.of("jvm: JIT");

  /** How the clients send batches. */
  enum Mode {
    COMPRESSED("", BatchCompression.defaults()),
    UNCOMPRESSED("_uncompressed_clients", BatchCompression.none());

    final String suffix;
    final BatchCompression compression;

    Mode(String suffix, BatchCompression compression) {
      this.suffix = suffix;
      this.compression = compression;
    }
  }

  @Override
  public String name() {
    return "ingest";
  }

  @Override
  public String description() {
    return "4 Flight clients push 2M rows (quick: 200k) of 10 columns; vs raw PUT of the same "
        + "WAL bytes";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    int rows = quick ? 200_000 : 2_000_000;
    int rounds = ROUNDS;
    double loadBefore = loadAverage();
    TableIdentifier table = TableIdentifier.of("bench", "ingest");
    try (BenchStorage storage = new BenchStorage(256L << 20);
        BufferAllocator allocator = new RootAllocator();
        IngestServer server = IngestServer.builder().host("127.0.0.1").port(0)
            .catalog(storage.catalog()).objectStore(storage.endpoint())
            .walLayout(WalLayout.defaults()).streamId("bench-0").token(TOKEN)
            .flushBytes(FLUSH_BYTES).flushInterval(FLUSH_INTERVAL).lanes(LANES).build().start();
        VerglasClient setup = client(server, allocator);
        S3Client s3 = storage.endpoint().newClient()) {
      setup.createTable(new CreateTableRequest(List.of("bench"), "ingest", BenchRows.SCHEMA,
          List.of("id"), PartitionSpec.unpartitioned(), Map.of()));
      List<List<VectorSchemaRoot>> perClient = BenchRows.batches(
          ArrowSchemas.toArrow(storage.catalog().loadTable(table).schema()), allocator, rows,
          BATCH_ROWS, CLIENTS);
      String bucket = storage.endpoint().bucket();
      // One pool for every round: its threads live on, so their CPU is counted per thread.
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS, clientThreads());
      try {
        Set<String> seen = new HashSet<>();
        // Warm-up rounds of both sides (JIT, connections), modes alternating; not measured.
        for (int w = 0; w < WARM_UP_ROUNDS; w++) {
          push(clients, server, allocator, table, perClient, Mode.values()[w % 2]);
          List<byte[]> warmSegments = newSegments(s3, bucket, seen);
          rawPutMbPerSecond(s3, bucket, warmSegments, 1);
          rawPutMbPerSecond(s3, bucket, warmSegments, LANES);
        }

        Map<Mode, List<Round>> measured = new LinkedHashMap<>();
        Map<Mode, Map<String, Double>> cpuByThread = new LinkedHashMap<>();
        double jitSecondsDuringPushes = 0;
        for (int r = 0; r < rounds; r++) {
          for (int m = 0; m < 2; m++) {
            Mode mode = Mode.values()[(r + m) % 2];
            ProcessCpu processCpu = ProcessCpu.start();
            ThreadCpu threadCpu = ThreadCpu.start();
            IngestRun run = push(clients, server, allocator, table, perClient, mode);
            double cpu = processCpu.cpuSeconds();
            jitSecondsDuringPushes += processCpu.jitSeconds();
            Map<String, Double> groups = threadCpu.topGroups(Integer.MAX_VALUE);
            groups.entrySet().stream().limit(12).forEach(e -> cpuByThread
                .computeIfAbsent(mode, k -> new HashMap<>())
                .merge(e.getKey(), e.getValue(), Double::sum));
            double clientCpu = sum(groups, List.of(CLIENT_THREADS));
            double serverCpu = cpu - clientCpu - sum(groups, ORIGIN_THREADS)
                - sum(groups, JIT_THREADS);
            List<byte[]> segments = newSegments(s3, bucket, seen);
            long walBytes = segments.stream().mapToLong(b -> b.length).sum();
            double sequential = rawPutMbPerSecond(s3, bucket, segments, 1);
            double parallel = rawPutMbPerSecond(s3, bucket, segments, LANES);
            measured.computeIfAbsent(mode, k -> new ArrayList<>()).add(new Round(run, walBytes,
                segments.size(), sequential, parallel, cpu, serverCpu, clientCpu));
          }
        }
        return report(quick, rows, measured, loadBefore,
            Math.round(jitSecondsDuringPushes * 1000 / rounds), cpuByThread);
      } finally {
        clients.shutdown();
        perClient.forEach(batches -> batches.forEach(VectorSchemaRoot::close));
      }
    }
  }

  private BenchmarkReport report(boolean quick, int rows, Map<Mode, List<Round>> byMode,
      double loadBefore, long jitMillisPerRound, Map<Mode, Map<String, Double>> cpuByThread) {
    List<Round> first = byMode.get(Mode.COMPRESSED);
    BenchmarkReport.Builder report = BenchmarkReport.builder(name(), quick)
        .metric("rows", rows)
        .metric("clients", CLIENTS)
        .metric("batch_rows", BATCH_ROWS)
        .metric("in_flight_batches_per_client", IN_FLIGHT)
        .metric("lanes", LANES)
        .metric("flush_bytes", FLUSH_BYTES)
        .metric("flush_interval_ms", FLUSH_INTERVAL.toMillis())
        .metric("rounds", first.size())
        .metric("warm_up_rounds", WARM_UP_ROUNDS)
        .metric("client_compression", Mode.COMPRESSED.compression.toString())
        .metric("jit_compile_ms_per_round", jitMillisPerRound);
    for (Mode mode : Mode.values()) {
      List<Round> rounds = byMode.get(mode);
      modeFigures(report, mode.suffix, rows, rounds);
      report.metric("cpu_s_by_thread_per_round" + mode.suffix,
          perRound(cpuByThread.get(mode), rounds.size()));
    }
    return report
        .environment("load_average_1m_before", loadBefore)
        .environment("load_average_1m_after", loadAverage())
        .build();
  }

  /** One client mode's figures, each name with the mode's suffix. */
  private static void modeFigures(BenchmarkReport.Builder report, String suffix, int rows,
      List<Round> rounds) {
    long[] latencies = sorted(rounds, r -> r.run().ackNanos());
    long[] wire = sorted(rounds, r -> r.run().wireAckNanos());
    report.metric("rows_per_s" + suffix, Math.round(median(rounds, r -> rows / r.run().seconds())))
        .metric("mb_per_s" + suffix, round(median(rounds, Round::mbPerSecond)))
        .metric("wal_bytes" + suffix, rounds.get(0).walBytes())
        .metric("segments" + suffix, rounds.get(0).segments())
        .metric("ack_latency_p50_ms" + suffix, round(percentileMillis(latencies, 0.50)))
        .metric("ack_latency_p99_ms" + suffix, round(percentileMillis(latencies, 0.99)))
        .metric("ack_latency_max_ms" + suffix, round(percentileMillis(latencies, 1.0)))
        .metric("ack_latency_on_wire_p50_ms" + suffix, round(percentileMillis(wire, 0.50)))
        .metric("ack_latency_on_wire_p99_ms" + suffix, round(percentileMillis(wire, 0.99)))
        .metric("elapsed_s" + suffix, round(median(rounds, r -> r.run().seconds())))
        .metric("cpu_s" + suffix, round(median(rounds, Round::cpuSeconds)))
        .metric("server_cpu_s" + suffix, round(median(rounds, Round::serverCpuSeconds)))
        .metric("client_cpu_s" + suffix, round(median(rounds, Round::clientCpuSeconds)))
        .metric("server_cpu_s_per_gb_wal" + suffix, round(median(rounds,
            r -> r.serverCpuSeconds() / (r.walBytes() / 1e9))))
        .metric("mb_per_s_rounds" + suffix, rounds.stream().map(r -> round(r.mbPerSecond()))
            .toList())
        .peer("raw_put_mb_per_s" + suffix, round(median(rounds, Round::rawSequential)))
        .peer("raw_put_parallel_mb_per_s" + suffix, round(median(rounds, Round::rawParallel)))
        .peer("raw_put_mb_per_s_rounds" + suffix, rounds.stream()
            .map(r -> round(r.rawSequential())).toList())
        .ratio("vs_raw_put" + suffix, median(rounds, r -> r.mbPerSecond() / r.rawSequential()), 1)
        .ratio("vs_raw_put_parallel" + suffix,
            median(rounds, r -> r.mbPerSecond() / r.rawParallel()), 1);
  }

  private static long[] sorted(List<Round> rounds,
      java.util.function.Function<Round, long[]> values) {
    long[] all = rounds.stream().flatMapToLong(r -> Arrays.stream(values.apply(r))).toArray();
    Arrays.sort(all);
    return all;
  }

  private static double median(List<Round> rounds, java.util.function.ToDoubleFunction<Round> f) {
    return median(rounds.stream().mapToDouble(f).toArray());
  }

  /** CPU seconds of the thread groups whose names start with one of {@code prefixes}. */
  private static double sum(Map<String, Double> groups, List<String> prefixes) {
    return groups.entrySet().stream()
        .filter(e -> prefixes.stream().anyMatch(e.getKey()::startsWith))
        .mapToDouble(Map.Entry::getValue).sum();
  }

  private static VerglasClient client(IngestServer server, BufferAllocator allocator) {
    return client(server, allocator, Mode.COMPRESSED);
  }

  private static VerglasClient client(IngestServer server, BufferAllocator allocator, Mode mode) {
    return VerglasClient.builder().uri(server.location()).token(TOKEN)
        .allocator(allocator).maxInFlightBatches(IN_FLIGHT)
        .batchCompression(mode.compression).build();
  }

  private static IngestRun push(ExecutorService pool, IngestServer server,
      BufferAllocator allocator, TableIdentifier table, List<List<VectorSchemaRoot>> perClient,
      Mode mode) throws Exception {
    List<long[]> latencies = new ArrayList<>();
    List<long[]> wireLatencies = new ArrayList<>();
    List<Future<?>> done = new ArrayList<>();
    long start = System.nanoTime();
    for (List<VectorSchemaRoot> batches : perClient) {
      long[] called = new long[batches.size()];
      long[] returned = new long[batches.size()];
      long[] acked = new long[batches.size()];
      long[] latency = new long[batches.size()];
      long[] wire = new long[batches.size()];
      latencies.add(latency);
      wireLatencies.add(wire);
      done.add(pool.submit(() -> {
        try (VerglasClient client = client(server, allocator, mode);
            TableWriter writer = client.openWriter(table)) {
          List<CompletableFuture<?>> acks = new ArrayList<>();
          for (int i = 0; i < batches.size(); i++) {
            int index = i;
            called[i] = System.nanoTime();
            acks.add(writer.write(batches.get(i))
                .thenRun(() -> acked[index] = System.nanoTime()));
            returned[i] = System.nanoTime();
          }
          CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        }
        for (int i = 0; i < called.length; i++) {
          latency[i] = acked[i] - called[i];
          wire[i] = Math.max(0, acked[i] - returned[i]);
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    long elapsed = System.nanoTime() - start;
    return new IngestRun(elapsed, latencies.stream().flatMapToLong(Arrays::stream).toArray(),
        wireLatencies.stream().flatMapToLong(Arrays::stream).toArray());
  }

  /** The WAL segments written since the last call (keys not in {@code seen}). */
  private static List<byte[]> newSegments(S3Client s3, String bucket, Set<String> seen) {
    List<byte[]> segments = new ArrayList<>();
    for (S3Object object : s3.listObjectsV2Paginator(b -> b.bucket(bucket)
        .prefix(WalLayout.defaults().prefix())).contents()) {
      if (WalLayout.defaults().parse(object.key()).isPresent() && seen.add(object.key())) {
        segments.add(s3.getObjectAsBytes(b -> b.bucket(bucket).key(object.key())).asByteArray());
      }
    }
    return segments;
  }

  /** PUTs the segments as ingest does (same client, same request body) with some at once. */
  private static double rawPutMbPerSecond(S3Client s3, String bucket, List<byte[]> segments,
      int threads) throws Exception {
    String prefix = "_rawput/" + UUID.randomUUID() + "/";
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    List<Future<?>> puts = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      byte[] bytes = segments.get(i);
      String key = prefix + i;
      puts.add(pool.submit(() -> s3.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*")
          .contentLength((long) bytes.length), S3SegmentStore.body(bytes))));
    }
    for (Future<?> put : puts) {
      put.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    long bytes = segments.stream().mapToLong(b -> b.length).sum();
    return bytes / (double) (1 << 20) / seconds;
  }

  /** CPU seconds per thread group of one round, largest first. */
  private static Map<String, Double> perRound(Map<String, Double> total, int rounds) {
    Map<String, Double> perRound = new LinkedHashMap<>();
    total.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()))
        .forEach(e -> perRound.put(e.getKey(), round(e.getValue() / rounds)));
    return perRound;
  }

  private static ThreadFactory clientThreads() {
    AtomicInteger next = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, "bench-client-" + next.getAndIncrement());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** The 1-minute load average: how busy the machine was with other work. */
  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (Exception e) {
      return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static double percentileMillis(long[] sorted, double p) {
    int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }

  private static double round(double value) {
    return Math.round(value * 100.0) / 100.0;
  }

  /** One measured round: the push, its segments, and the raw PUTs of those segments. */
  record Round(IngestRun run, long walBytes, int segments, double rawSequential,
      double rawParallel, double cpuSeconds, double serverCpuSeconds, double clientCpuSeconds) {
    double mbPerSecond() {
      return walBytes / (double) (1 << 20) / run.seconds();
    }
  }

  /**
   * Timing of one push: wall time, every batch's write-call → ack latency, and its latency from
   * the moment {@code write} returned (the batch was on the wire) → ack.
   */
  record IngestRun(long elapsedNanos, long[] ackNanos, long[] wireAckNanos) {
    double seconds() {
      return elapsedNanos / 1e9;
    }
  }
}
