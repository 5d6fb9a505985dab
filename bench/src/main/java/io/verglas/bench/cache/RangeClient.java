package io.verglas.bench.cache;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain (unsigned) HTTP range reads against one endpoint, the same client for every peer so
 * only the server side differs. A pass runs engine tasks on a fixed number of streams; each
 * task's reads are sequential, as a reader thread of an engine issues them.
 */
final class RangeClient implements AutoCloseable {
  private final URI endpoint;
  private final String bucket;
  private final HttpClient http;
  private final ExecutorService pool;
  private final int streams;

  RangeClient(URI endpoint, String bucket, int streams) {
    this.endpoint = endpoint;
    this.bucket = bucket;
    this.streams = streams;
    this.pool = Executors.newFixedThreadPool(streams, r -> {
      Thread t = new Thread(r, "bench-range-client");
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).executor(pool).build();
  }

  /** What a pass did. */
  record PassResult(double seconds, long requests, long bytes) {}

  URI uri(String key) {
    return URI.create(endpoint + "/" + bucket + "/" + key);
  }

  /** Bytes of the range; fails unless the server answers 206 with exactly those bytes' count. */
  byte[] get(BenchTable.Range range) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri(range.key()))
        .header("Range", "bytes=" + range.start() + "-" + range.end())
        .timeout(Duration.ofMinutes(2))
        .GET().build();
    HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 206 || response.body().length != range.length()) {
      throw new IOException("Cannot read " + range + " from " + endpoint + ": status "
          + response.statusCode() + ", " + response.body().length + " bytes");
    }
    return response.body();
  }

  /** The whole object (status 200). */
  byte[] getAll(String key) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri(key)).timeout(Duration.ofMinutes(2)).GET().build();
    HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw new IOException("Cannot read " + key + " from " + endpoint + ": status " + response.statusCode());
    }
    return response.body();
  }

  void put(String key, byte[] content) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri(key)).timeout(Duration.ofMinutes(2))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(content)).build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("Cannot write " + key + " through " + endpoint + ": status "
          + response.statusCode() + " " + response.body());
    }
  }

  /**
   * Reads the range and returns how many body bytes arrived, without keeping them (a pass moves
   * gigabytes; collecting them would make the client's garbage the benchmark). Fails unless the
   * server answers 206 with the range's length.
   */
  long fetch(BenchTable.Range range) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri(range.key()))
        .header("Range", "bytes=" + range.start() + "-" + range.end())
        .timeout(Duration.ofMinutes(2))
        .GET().build();
    HttpResponse<Long> response = http.send(request, info -> new CountingSubscriber());
    long n = response.body();
    if (response.statusCode() != 206 || n != range.length()) {
      throw new IOException("Cannot read " + range + " from " + endpoint + ": status "
          + response.statusCode() + ", " + n + " bytes");
    }
    return n;
  }

  /** Counts body bytes as they arrive and drops them. */
  private static final class CountingSubscriber implements HttpResponse.BodySubscriber<Long> {
    private final java.util.concurrent.CompletableFuture<Long> result = new java.util.concurrent.CompletableFuture<>();
    private long count;

    @Override
    public java.util.concurrent.CompletionStage<Long> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<java.nio.ByteBuffer> buffers) {
      for (java.nio.ByteBuffer b : buffers) {
        count += b.remaining();
      }
    }

    @Override
    public void onError(Throwable error) {
      result.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      result.complete(count);
    }
  }

  /** Runs every task, {@code streams} at a time, and times the whole. */
  PassResult pass(List<List<BenchTable.Range>> tasks) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicLong requests = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    List<Future<?>> workers = new ArrayList<>();
    long start = System.nanoTime();
    ExecutorService runners = Executors.newFixedThreadPool(streams);
    try {
      for (int w = 0; w < streams; w++) {
        workers.add(runners.submit(() -> {
          int i;
          while ((i = next.getAndIncrement()) < tasks.size()) {
            for (BenchTable.Range range : tasks.get(i)) {
              bytes.addAndGet(fetch(range));
              requests.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : workers) {
        f.get();
      }
    } finally {
      runners.shutdownNow();
    }
    return new PassResult((System.nanoTime() - start) / 1e9, requests.get(), bytes.get());
  }

  /** Latencies in milliseconds of the ranges read one after the other. */
  double[] latencies(List<BenchTable.Range> ranges) throws IOException, InterruptedException {
    double[] ms = new double[ranges.size()];
    for (int i = 0; i < ranges.size(); i++) {
      long t0 = System.nanoTime();
      fetch(ranges.get(i));
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    return ms;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
