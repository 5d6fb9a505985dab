package io.verglas.bench.ingest;

import io.verglas.arrow.ArrowSchemas;
import io.verglas.bench.Benchmark;
import io.verglas.bench.BenchmarkReport;
import io.verglas.bench.stack.BenchStorage;
import io.verglas.ingest.IngestServer;
import io.verglas.sdk.TableWriter;
import io.verglas.sdk.VerglasClient;
import io.verglas.table.CreateTableRequest;
import io.verglas.wal.WalLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code ingest}: 4 concurrent Flight clients push rows of 10 columns (~100 bytes each) into one
 * table; ingest validates, group-commits into WAL segments and acknowledges after each durable
 * PUT. Peer, in the same run: PUTting the very same segment bytes straight to the same S3
 * endpoint, one PUT at a time as a stream's writer does ({@code raw_put_mb_per_s}), and with 4
 * PUTs in parallel ({@code raw_put_parallel_mb_per_s}, for reference).
 */
public final class IngestBenchmark implements Benchmark {
  private static final int CLIENTS = 4;
  private static final int BATCH_ROWS = 10_000;
  private static final Duration FLUSH_INTERVAL = Duration.ofMillis(200);
  private static final long FLUSH_BYTES = 8L << 20;

  @Override
  public String name() {
    return "ingest";
  }

  @Override
  public String description() {
    return "4 Flight clients push 2M rows (quick: 200k) of 10 columns; vs raw PUT of the same WAL bytes";
  }

  @Override
  public BenchmarkReport run(boolean quick) throws Exception {
    int rows = quick ? 200_000 : 2_000_000;
    TableIdentifier table = TableIdentifier.of("bench", "ingest");
    try (BenchStorage storage = new BenchStorage(256L << 20);
        BufferAllocator allocator = new RootAllocator();
        IngestServer server = IngestServer.builder().host("127.0.0.1").port(0)
            .catalog(storage.catalog()).objectStore(storage.endpoint())
            .walLayout(WalLayout.defaults()).streamId("bench-0").token("bench-token")
            .flushBytes(FLUSH_BYTES).flushInterval(FLUSH_INTERVAL).build().start();
        VerglasClient setup = client(server, allocator)) {
      setup.createTable(new CreateTableRequest(List.of("bench"), "ingest", BenchRows.SCHEMA,
          List.of("id"), PartitionSpec.unpartitioned(), Map.of()));
      List<List<VectorSchemaRoot>> perClient = BenchRows.batches(
          ArrowSchemas.toArrow(storage.catalog().loadTable(table).schema()), allocator, rows,
          BATCH_ROWS, CLIENTS);
      try {
        IngestRun run = push(server, allocator, table, perClient);
        try (S3Client s3 = storage.endpoint().newClient()) {
          List<byte[]> segments = readSegments(s3, storage.endpoint().bucket());
          long walBytes = segments.stream().mapToLong(b -> b.length).sum();
          double sequential = rawPutMbPerSecond(s3, storage.endpoint().bucket(), segments, 1);
          double parallel = rawPutMbPerSecond(s3, storage.endpoint().bucket(), segments, CLIENTS);
          double mbPerSecond = walBytes / (double) (1 << 20) / run.seconds();
          return BenchmarkReport.builder(name(), quick)
              .metric("rows", rows)
              .metric("clients", CLIENTS)
              .metric("batch_rows", BATCH_ROWS)
              .metric("flush_interval_ms", FLUSH_INTERVAL.toMillis())
              .metric("rows_per_s", Math.round(rows / run.seconds()))
              .metric("mb_per_s", round(mbPerSecond))
              .metric("wal_bytes", walBytes)
              .metric("segments", segments.size())
              .metric("ack_latency_p50_ms", round(run.percentileMillis(0.50)))
              .metric("ack_latency_p99_ms", round(run.percentileMillis(0.99)))
              .metric("elapsed_s", round(run.seconds()))
              .peer("raw_put_mb_per_s", round(sequential))
              .peer("raw_put_parallel_mb_per_s", round(parallel))
              .ratio("vs_raw_put", mbPerSecond, sequential)
              .ratio("vs_raw_put_parallel", mbPerSecond, parallel)
              .build();
        }
      } finally {
        perClient.forEach(batches -> batches.forEach(VectorSchemaRoot::close));
      }
    }
  }

  private static VerglasClient client(IngestServer server, BufferAllocator allocator) {
    return VerglasClient.builder().uri(server.location()).token("bench-token")
        .allocator(allocator).build();
  }

  private static IngestRun push(IngestServer server, BufferAllocator allocator,
      TableIdentifier table, List<List<VectorSchemaRoot>> perClient) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    List<long[]> latencies = new ArrayList<>();
    List<Future<?>> done = new ArrayList<>();
    long start = System.nanoTime();
    for (List<VectorSchemaRoot> batches : perClient) {
      long[] latency = new long[batches.size()];
      latencies.add(latency);
      done.add(pool.submit(() -> {
        try (VerglasClient client = client(server, allocator);
            TableWriter writer = client.openWriter(table)) {
          List<CompletableFuture<?>> acks = new ArrayList<>();
          for (int i = 0; i < batches.size(); i++) {
            int index = i;
            long sent = System.nanoTime();
            acks.add(writer.write(batches.get(i))
                .thenRun(() -> latency[index] = System.nanoTime() - sent));
          }
          CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    long elapsed = System.nanoTime() - start;
    pool.shutdown();
    return new IngestRun(elapsed, latencies.stream().flatMapToLong(Arrays::stream).toArray());
  }

  private static List<byte[]> readSegments(S3Client s3, String bucket) {
    List<byte[]> segments = new ArrayList<>();
    for (S3Object object : s3.listObjectsV2Paginator(b -> b.bucket(bucket)
        .prefix(WalLayout.defaults().prefix())).contents()) {
      segments.add(s3.getObjectAsBytes(b -> b.bucket(bucket).key(object.key())).asByteArray());
    }
    return segments;
  }

  private static double rawPutMbPerSecond(S3Client s3, String bucket, List<byte[]> segments,
      int threads) throws Exception {
    String prefix = "_rawput/" + UUID.randomUUID() + "/";
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    List<Future<?>> puts = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      byte[] bytes = segments.get(i);
      String key = prefix + i;
      puts.add(pool.submit(() -> s3.putObject(b -> b.bucket(bucket).key(key),
          RequestBody.fromBytes(bytes))));
    }
    for (Future<?> put : puts) {
      put.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    long bytes = segments.stream().mapToLong(b -> b.length).sum();
    return bytes / (double) (1 << 20) / seconds;
  }

  private static double round(double value) {
    return Math.round(value * 100.0) / 100.0;
  }

  /** Timing of one push: wall time and every batch's send → ack latency. */
  record IngestRun(long elapsedNanos, long[] ackNanos) {
    double seconds() {
      return elapsedNanos / 1e9;
    }

    double percentileMillis(double p) {
      long[] sorted = ackNanos.clone();
      Arrays.sort(sorted);
      int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
      return sorted[Math.max(0, index)] / 1e6;
    }
  }
}
