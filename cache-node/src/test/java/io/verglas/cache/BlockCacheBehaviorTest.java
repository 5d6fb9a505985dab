package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** The read path through the block cache, observed from outside with a counting origin. */
class BlockCacheBehaviorTest {
  private static final int MIB = CacheNode.MIB;
  @TempDir Path dir;

  private TestingCountingOrigin counting;

  private TestingCacheNode node(java.util.function.Consumer<CacheNode.Builder> tune) {
    return new TestingCacheNode(dir, o -> counting = new TestingCountingOrigin(o), tune);
  }

  @Test
  void secondReadOfARangeIsServedFromCache() {
    try (TestingCacheNode t = node(b -> b.blockSize(MIB).metadataTtl(Duration.ofMinutes(5)))) {
      byte[] content = S3ObjectOperationsTest.randomBytes(3 * MIB, 5);
      t.s3.putObject(b -> b.bucket(BUCKET).key("obj"), RequestBody.fromBytes(content));

      byte[] first = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj").range("bytes=100-199")).asByteArray();
      CacheStats afterFirst = t.node.stats();
      assertThat(afterFirst.misses()).isEqualTo(1);
      assertThat(afterFirst.hits()).isZero();
      assertThat(afterFirst.fills()).isEqualTo(1);
      assertThat(afterFirst.dramBytes()).isEqualTo(MIB);

      byte[] second = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj").range("bytes=100-199")).asByteArray();
      CacheStats afterSecond = t.node.stats();
      assertThat(second).isEqualTo(first).isEqualTo(Arrays.copyOfRange(content, 100, 200));
      assertThat(afterSecond.hits()).isEqualTo(1);
      assertThat(afterSecond.misses()).isEqualTo(1);
      assertThat(afterSecond.originRequests()).isEqualTo(afterFirst.originRequests());
      assertThat(afterSecond.bytesServedFromCache()).isEqualTo(100);
      assertThat(counting.rangeReads.get()).isEqualTo(1);
      assertThat(afterSecond.toJson()).contains("\"hits\":1");
    }
  }

  @Test
  void concurrentColdMissesShareOneOriginFetch() throws Exception {
    try (TestingCacheNode t = node(b -> b.blockSize(MIB))) {
      byte[] content = S3ObjectOperationsTest.randomBytes(MIB / 2, 9);
      t.s3.putObject(b -> b.bucket(BUCKET).key("cold"), RequestBody.fromBytes(content));
      CompletableFuture<Void> gate = counting.closeGate();

      int readers = 64;
      ExecutorService pool = Executors.newFixedThreadPool(readers);
      List<Future<byte[]>> results = new ArrayList<>();
      try {
        for (int i = 0; i < readers; i++) {
          results.add(pool.submit(() -> t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("cold")).asByteArray()));
        }
        // All readers are parked on the one in-flight fetch before it may complete.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.node.stats().coalescedMisses() < readers - 1 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        assertThat(t.node.stats().coalescedMisses()).isEqualTo(readers - 1);
        gate.complete(null);
        for (Future<byte[]> r : results) {
          assertThat(r.get(30, TimeUnit.SECONDS)).isEqualTo(content);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(counting.rangeReads.get()).isEqualTo(1);
      assertThat(t.node.stats().misses()).isEqualTo(1);
    }
  }

  @Test
  void overwritesDuringReadsNeverYieldMixedContent() throws Exception {
    try (TestingCacheNode t = node(b -> b.blockSize(MIB).metadataTtl(Duration.ZERO).dramCapacityBytes(4L * MIB))) {
      byte[] a = new byte[3 * MIB];
      byte[] b = new byte[3 * MIB];
      Arrays.fill(a, (byte) 'A');
      Arrays.fill(b, (byte) 'B');
      t.s3.putObject(r -> r.bucket(BUCKET).key("flip"), RequestBody.fromBytes(a));
      counting.delayRangeReads(3); // widen the window between ETag resolution and block reads

      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger seenA = new AtomicInteger();
      AtomicInteger seenB = new AtomicInteger();
      AtomicInteger errors = new AtomicInteger();
      List<String> mixed = new java.util.concurrent.CopyOnWriteArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> readers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          readers.add(pool.submit(() -> {
            try (S3Client c = t.client(TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY)) {
              while (!stop.get()) {
                try {
                  byte[] got = c.getObjectAsBytes(r -> r.bucket(BUCKET).key("flip")).asByteArray();
                  if (Arrays.equals(got, a)) {
                    seenA.incrementAndGet();
                  } else if (Arrays.equals(got, b)) {
                    seenB.incrementAndGet();
                  } else {
                    mixed.add("length " + got.length + " first " + got[0] + " last " + got[got.length - 1]);
                  }
                } catch (RuntimeException e) {
                  errors.incrementAndGet();
                }
              }
            }
          }));
        }
        try (S3Client writer = t.client(TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY)) {
          for (int i = 0; i < 16; i++) {
            byte[] next = i % 2 == 0 ? b : a;
            writer.putObject(r -> r.bucket(BUCKET).key("flip"), RequestBody.fromBytes(next));
            Thread.sleep(5);
          }
        }
        stop.set(true);
        for (Future<?> r : readers) {
          r.get(60, TimeUnit.SECONDS);
        }
      } finally {
        stop.set(true);
        pool.shutdownNow();
      }
      assertThat(mixed).isEmpty();
      assertThat(seenA.get() + seenB.get()).isPositive();
      assertThat(t.node.stats().dramBytes()).isLessThanOrEqualTo(4L * MIB);
    }
  }

  @Test
  void aVersionChangeAfterTheHeadIsSentCutsTheResponseShort() throws Exception {
    try (TestingCacheNode t = node(b -> b.blockSize(MIB))) {
      byte[] a = new byte[5 * MIB];
      Arrays.fill(a, (byte) 'A');
      t.s3.putObject(r -> r.bucket(BUCKET).key("cut"), RequestBody.fromBytes(a));
      byte[] b = new byte[5 * MIB];
      Arrays.fill(b, (byte) 'B');
      AtomicBoolean overwritten = new AtomicBoolean();
      // Blocks 0-2 are requested before the head goes out; block 3 only after block 0 is sent.
      counting.beforeRangeRead(offset -> {
        if (offset >= 3L * MIB && overwritten.compareAndSet(false, true)) {
          t.localOrigin.put(BUCKET, "cut", io.verglas.cache.origin.ObjectBody.ofBytes(b),
              io.verglas.cache.origin.WriteOptions.DEFAULT).join();
        }
      });
      URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/cut");
      var signed = TestingRawHttp.sign(uri, software.amazon.awssdk.http.SdkHttpMethod.GET, new byte[0], false,
          TestingCacheNode.ACCESS_KEY, TestingCacheNode.SECRET_KEY);
      Map<String, String> headers = new java.util.LinkedHashMap<>();
      signed.request().headers().forEach((k, v) -> headers.put(k, String.join(",", v)));
      try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
        TestingRawHttp.Response r = http.exchange("GET", "/" + BUCKET + "/cut", headers, new byte[0]);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().get("content-length")).isEqualTo(Integer.toString(5 * MIB));
        assertThat(r.complete()).isFalse(); // connection reset mid-body
        assertThat(r.body().length).isLessThan(5 * MIB);
        for (byte x : r.body()) {
          assertThat(x).isEqualTo((byte) 'A');
        }
      }
      assertThat(overwritten).isTrue();
      // The next read sees the new version, whole.
      assertThat(t.s3.getObjectAsBytes(r -> r.bucket(BUCKET).key("cut")).asByteArray()).isEqualTo(b);
    }
  }

  @Test
  void dramCeilingHoldsWhileServingMoreThanItHolds() {
    long capacity = 3L * MIB;
    try (TestingCacheNode t = node(b -> b.blockSize(MIB).dramCapacityBytes(capacity))) {
      for (int i = 0; i < 4; i++) {
        int n = i;
        t.s3.putObject(b -> b.bucket(BUCKET).key("o" + n), RequestBody.fromBytes(S3ObjectOperationsTest.randomBytes(2 * MIB + 3, n)));
      }
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 4; i++) {
          int n = i;
          t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("o" + n));
          assertThat(t.node.stats().dramBytes()).isLessThanOrEqualTo(capacity);
        }
      }
      assertThat(t.node.stats().evictions()).isPositive();
    }
  }
}
