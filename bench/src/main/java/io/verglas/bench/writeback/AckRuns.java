package io.verglas.bench.writeback;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.Origin;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * PUT acknowledgment over one latency-injected origin: through a cache node writing through,
 * and through the coordinator of a three-node cache cluster with write-back (k=2, m=1, w=3: a
 * fragment on every node, journal records copied to the others; {@link WriteBackCluster}). PUTs
 * alternate between the two, one at a time, so load on the machine hits both alike.
 *
 * <p>The origin is a local directory behind an in-process delay: every PUT and DELETE completes
 * {@code latency + length / bandwidth} after it was asked (an S3-like time to first byte and
 * upload rate); reads are not delayed. Halfway through, a fragment node is halted (no
 * leave message, as a crash, in-process) and started again, then the coordinator likewise, on
 * its journal: a node kill and a coordinator restart mid-run. Then the run waits for propagation to
 * drain and checks every acknowledged object at the origin by MD5 ({@code acked_objects_lost}).
 * Propagation lag: from a PUT's acknowledgment to the end of its origin write.
 */
final class AckRuns {
  static final String BUCKET = "bench";
  static final Duration LATENCY = Duration.ofMillis(50);
  static final long BANDWIDTH_BYTES_PER_S = 100_000_000L;

  record Result(long[] writeBackNanos, long[] writeThroughNanos, long[] lagNanos, int lost, int acked) {}

  private final Path dir;
  private final int bodyBytes;
  private final Map<String, Long> originDone = new ConcurrentHashMap<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  AckRuns(Path dir, int bodyBytes) {
    this.dir = dir;
    this.bodyBytes = bodyBytes;
  }

  Result run(int warmup, int measured) throws Exception {
    try (LocalDirectoryOrigin local = new LocalDirectoryOrigin(Files.createDirectories(dir.resolve("origin")))) {
      Origin origin = delayed(local);
      local.createBucket(BUCKET).join();
      CacheNode through = node(origin).start();
      WriteBackCluster cluster = new WriteBackCluster(dir, origin);
      try {
        List<Long> wb = new ArrayList<>();
        List<Long> wt = new ArrayList<>();
        Map<String, byte[]> acked = new ConcurrentHashMap<>();
        Map<String, Long> ackedAt = new ConcurrentHashMap<>();
        for (int i = -warmup; i < measured; i++) {
          if (i == measured / 2) {
            cluster.crashAndRestart(2); // a fragment node
            cluster.crashAndRestart(0); // the coordinator, its journal kept
          }
          byte[] body = body(i + warmup);
          String key = "wb/" + (i + warmup);
          long wbNanos = put(cluster.node(0), key, body);
          ackedAt.put(key, System.nanoTime());
          acked.put(key, md5(body));
          long wtNanos = put(through, "wt/" + (i + warmup), body);
          if (i >= 0) {
            wb.add(wbNanos);
            wt.add(wtNanos);
          }
        }
        drain(cluster);
        int lost = 0;
        for (Map.Entry<String, byte[]> e : acked.entrySet()) {
          Path file = dir.resolve("origin").resolve(BUCKET).resolve(e.getKey());
          if (!Files.exists(file) || !Arrays.equals(md5(Files.readAllBytes(file)), e.getValue())) {
            lost++;
          }
        }
        long[] lags = ackedAt.entrySet().stream().filter(e -> originDone.containsKey(e.getKey()))
            .mapToLong(e -> Math.max(0, originDone.get(e.getKey()) - e.getValue())).toArray();
        return new Result(longs(wb), longs(wt), lags, lost, acked.size());
      } finally {
        cluster.close();
        through.close();
      }
    }
  }

  private static CacheNode node(Origin origin) {
    return CacheNode.builder().allowAnonymous(true).origin(origin).build();
  }

  private static void drain(WriteBackCluster cluster) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (cluster.dirtyObjects() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot finish the write-back run: propagation did not drain in 5 minutes");
      }
      Thread.sleep(20);
    }
  }

  private long put(CacheNode node, String key, byte[] body) throws IOException, InterruptedException {
    URI uri = node.endpoint().resolve("/" + BUCKET + "/" + key);
    long start = System.nanoTime();
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
        .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    long nanos = System.nanoTime() - start;
    if (response.statusCode() != 200) {
      throw new IOException("Cannot PUT " + uri + ": " + response.statusCode() + " " + response.body());
    }
    return nanos;
  }

  /** The origin with every PUT and DELETE completing after the injected latency and upload time. */
  private Origin delayed(Origin origin) {
    return (Origin) Proxy.newProxyInstance(Origin.class.getClassLoader(), new Class<?>[] {Origin.class},
        (proxy, method, args) -> {
          if (method.getName().equals("put") && args.length == 4) {
            String key = (String) args[1];
            return delay(((ObjectBody) args[2]).length()).thenCompose(v -> call(origin, method, args))
                .thenApply(result -> {
                  originDone.put(key, System.nanoTime());
                  return result;
                });
          }
          if (method.getName().equals("delete")) {
            return delay(0).thenCompose(v -> call(origin, method, args));
          }
          return invoke(origin, method, args);
        });
  }

  private static CompletableFuture<Void> delay(long bytes) {
    long millis = LATENCY.toMillis() + bytes * 1000 / BANDWIDTH_BYTES_PER_S;
    return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<Object> call(Origin origin, Method method, Object[] args) {
    try {
      return (CompletableFuture<Object>) invoke(origin, method, args);
    } catch (Throwable e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static Object invoke(Origin origin, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(origin, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private byte[] body(int seed) {
    byte[] body = new byte[bodyBytes];
    new Random(seed).nextBytes(body);
    return body;
  }

  private static byte[] md5(byte[] bytes) {
    try {
      return MessageDigest.getInstance("MD5").digest(bytes);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot check bodies: no MD5 in this JVM", e);
    }
  }

  private static long[] longs(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).toArray();
  }

  /** Nearest-rank percentile of nanoseconds, in milliseconds (two decimals); -1 without values. */
  static double percentileMillis(long[] nanos, double p) {
    if (nanos.length == 0) {
      return -1;
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p * sorted.length);
    return Math.round(sorted[Math.max(0, Math.min(sorted.length, rank) - 1)] / 10_000.0) / 100.0;
  }
}
