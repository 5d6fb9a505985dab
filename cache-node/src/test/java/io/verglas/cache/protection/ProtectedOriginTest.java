package io.verglas.cache.protection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.TestingClock;
import io.verglas.cache.origin.BucketInfo;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.PartListing;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ProtectedOriginTest {
  /** Answers range reads and puts from a script of outcomes; everything else is unsupported. */
  static final class TestingScriptedOrigin implements Origin {
    final ArrayDeque<Supplier<CompletableFuture<byte[]>>> reads = new ArrayDeque<>();
    final ArrayDeque<Supplier<CompletableFuture<PutResult>>> puts = new ArrayDeque<>();
    int readCalls;
    int putCalls;

    void readsFail(int times, Supplier<Throwable> error) {
      for (int i = 0; i < times; i++) {
        reads.add(() -> CompletableFuture.failedFuture(error.get()));
      }
    }

    @Override
    public CompletableFuture<byte[]> readRange(String bucket, String key, String etag, long offset, int length) {
      readCalls++;
      Supplier<CompletableFuture<byte[]>> next = reads.poll();
      return next != null ? next.get() : CompletableFuture.completedFuture(new byte[length]);
    }

    @Override
    public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
      putCalls++;
      Supplier<CompletableFuture<PutResult>> next = puts.poll();
      return next != null ? next.get() : CompletableFuture.completedFuture(new PutResult("\"e\"", Instant.EPOCH));
    }

    private static <T> CompletableFuture<T> unsupported() {
      return CompletableFuture.failedFuture(new UnsupportedOperationException());
    }

    @Override public CompletableFuture<List<BucketInfo>> listBuckets() { return unsupported(); }
    @Override public CompletableFuture<Boolean> bucketExists(String bucket) { return unsupported(); }
    @Override public CompletableFuture<Void> createBucket(String bucket) { return unsupported(); }
    @Override public CompletableFuture<Void> deleteBucket(String bucket) { return unsupported(); }
    @Override public CompletableFuture<ObjectMeta> head(String bucket, String key) { return unsupported(); }
    @Override public CompletableFuture<Void> delete(String bucket, String key, WriteCondition c) { return unsupported(); }
    @Override public CompletableFuture<PutResult> copy(CopyRequest request) { return unsupported(); }
    @Override public CompletableFuture<ListPage> list(ListRequest request) { return unsupported(); }
    @Override public CompletableFuture<String> createMultipartUpload(String b, String k, WriteOptions o) { return unsupported(); }
    @Override public CompletableFuture<String> uploadPart(MultipartUpload u, int n, ObjectBody body) { return unsupported(); }
    @Override public CompletableFuture<PutResult> completeMultipartUpload(MultipartUpload u, List<CompletedPart> p, WriteCondition c) { return unsupported(); }
    @Override public CompletableFuture<Void> abortMultipartUpload(MultipartUpload u) { return unsupported(); }
    @Override public CompletableFuture<PartListing> listParts(MultipartUpload u, int m, int max) { return unsupported(); }
    @Override public void close() {}
  }

  private final TestingScriptedOrigin scripted = new TestingScriptedOrigin();
  private final TestingClock clock = new TestingClock();
  private final List<Duration> delays = new ArrayList<>();

  private ProtectedOrigin protect(OriginProtection settings) {
    Delayer immediate = d -> {
      delays.add(d);
      return CompletableFuture.completedFuture(null);
    };
    return new ProtectedOrigin(scripted, settings, clock, immediate, () -> 0.5, Runnable::run);
  }

  private static Throwable unavailable() {
    return new OriginException(OriginException.Reason.UNAVAILABLE, "500 InternalError");
  }

  private static byte[] read(Origin o) {
    return o.readRange("b", "k", "\"e\"", 0, 4).join();
  }

  @Test
  void transientReadFailuresAreRetriedWithJitteredBackoff() {
    ProtectedOrigin origin = protect(OriginProtection.builder().maxAttempts(4)
        .backoff(Duration.ofMillis(100), Duration.ofMillis(300)).build());
    scripted.readsFail(1, ProtectedOriginTest::unavailable);
    scripted.readsFail(1, () -> new UncheckedIOException(new IOException("connection reset")));
    scripted.readsFail(1, () -> new OriginException(OriginException.Reason.SLOW_DOWN, "SlowDown"));
    assertThat(read(origin)).hasSize(4);
    assertThat(scripted.readCalls).isEqualTo(4);
    assertThat(origin.retries()).isEqualTo(3);
    assertThat(origin.attempts()).isEqualTo(4);
    assertThat(origin.failures()).isZero();
    // Full jitter with random = 0.5: half of min(max, base x 2^(n-1)).
    assertThat(delays).containsExactly(Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(150));
  }

  @Test
  void retriesStopAtMaxAttempts() {
    ProtectedOrigin origin = protect(OriginProtection.builder().maxAttempts(2).build());
    scripted.readsFail(5, ProtectedOriginTest::unavailable);
    assertThatThrownBy(() -> read(origin)).isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(OriginException.class);
    assertThat(scripted.readCalls).isEqualTo(2);
    assertThat(origin.failures()).isEqualTo(1);
  }

  @Test
  void answersAboutTheRequestAreNeitherRetriedNorFailures() {
    ProtectedOrigin origin = protect(OriginProtection.builder().slidingWindow(4, 2).build());
    for (int i = 0; i < 10; i++) {
      scripted.readsFail(1, () -> new OriginException(OriginException.Reason.PRECONDITION_FAILED, "changed"));
      assertThatThrownBy(() -> read(origin)).hasCauseInstanceOf(OriginException.class);
    }
    assertThat(scripted.readCalls).isEqualTo(10);
    assertThat(origin.retries()).isZero();
    assertThat(origin.circuitState()).isEqualTo("CLOSED");
  }

  @Test
  void writesAreRetriedOnlyWhenTheOriginSaidSlowDown() {
    ProtectedOrigin origin = protect(OriginProtection.defaults());
    scripted.puts.add(() -> CompletableFuture.failedFuture(new OriginException(OriginException.Reason.SLOW_DOWN, "SlowDown")));
    assertThat(origin.put("b", "k", ObjectBody.ofBytes(new byte[1]), WriteOptions.DEFAULT).join().etag()).isEqualTo("\"e\"");
    assertThat(scripted.putCalls).isEqualTo(2);

    scripted.puts.add(() -> CompletableFuture.failedFuture(unavailable()));
    assertThatThrownBy(() -> origin.put("b", "k", ObjectBody.ofBytes(new byte[1]), WriteOptions.DEFAULT).join())
        .hasCauseInstanceOf(OriginException.class);
    assertThat(scripted.putCalls).isEqualTo(3); // an unknown outcome is not repeated
    scripted.puts.add(() -> CompletableFuture.failedFuture(new UncheckedIOException(new IOException("reset"))));
    assertThatThrownBy(() -> origin.put("b", "k", ObjectBody.ofBytes(new byte[1]), WriteOptions.DEFAULT).join())
        .cause().isInstanceOfSatisfying(OriginException.class, e -> {
          assertThat(e.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE); // a 503, not a 500
          assertThat(e).hasMessageContaining("reset").hasCauseInstanceOf(UncheckedIOException.class);
        });
    assertThat(scripted.putCalls).isEqualTo(4);
  }

  @Test
  void theBreakerOpensFailsFastAndRecovers() {
    ProtectedOrigin origin = protect(OriginProtection.builder().maxAttempts(1).slidingWindow(4, 4)
        .failureRateThreshold(50).openDuration(Duration.ofSeconds(10)).build());
    scripted.readsFail(4, ProtectedOriginTest::unavailable);
    for (int i = 0; i < 4; i++) {
      assertThatThrownBy(() -> read(origin)).hasCauseInstanceOf(OriginException.class);
    }
    assertThat(origin.circuitState()).isEqualTo("OPEN");
    assertThatThrownBy(() -> read(origin)).hasMessageContaining("circuit open");
    assertThat(scripted.readCalls).isEqualTo(4); // the origin was not asked
    assertThat(origin.shortCircuited()).isEqualTo(1);

    clock.shift(Duration.ofSeconds(11));
    for (int i = 0; i < 3; i++) {
      assertThat(read(origin)).hasSize(4); // half-open trial calls succeed
    }
    assertThat(origin.circuitState()).isEqualTo("CLOSED");
  }

  @Test
  void theConcurrencyLimitQueuesAndThenRejects() {
    ProtectedOrigin origin = protect(OriginProtection.builder().maxConcurrency(2).maxQueued(2).build());
    List<CompletableFuture<byte[]>> gates = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      CompletableFuture<byte[]> gate = new CompletableFuture<>();
      gates.add(gate);
      scripted.reads.add(() -> gate);
    }
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(origin.readRange("b", "k", "\"e\"", 0, 1));
    }
    assertThat(scripted.readCalls).isEqualTo(2);
    assertThat(origin.inFlight()).isEqualTo(2);
    assertThat(origin.queued()).isEqualTo(2);
    assertThatThrownBy(calls.get(4)::join).hasMessageContaining("reduce your request rate");
    assertThat(origin.rejected()).isEqualTo(1);
    gates.get(0).complete(new byte[1]);
    assertThat(scripted.readCalls).isEqualTo(3);
    gates.forEach(g -> g.complete(new byte[1]));
    for (int i = 0; i < 4; i++) {
      assertThat(calls.get(i).join()).hasSize(1);
    }
    assertThat(origin.inFlight()).isZero();
    assertThat(origin.queued()).isZero();
  }

  @Test
  void disabledProtectionPassesStraightThrough() {
    ProtectedOrigin origin = protect(OriginProtection.disabled());
    scripted.readsFail(1, ProtectedOriginTest::unavailable);
    assertThatThrownBy(() -> read(origin)).hasCauseInstanceOf(OriginException.class);
    assertThat(scripted.readCalls).isEqualTo(1);
    assertThat(origin.circuitState()).isEqualTo("DISABLED");
  }

  @Property(tries = 300)
  void backoffStaysWithinItsCeiling(@ForAll @IntRange(min = 1, max = 100) int retry,
      @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double random) {
    OriginProtection settings = OriginProtection.builder().backoff(Duration.ofMillis(10), Duration.ofSeconds(1)).build();
    ProtectedOrigin origin = new ProtectedOrigin(scripted, settings, clock, d -> null, () -> random, Runnable::run);
    Duration d = origin.backoff(retry);
    long ceiling = Math.min(1_000, 10L << Math.min(retry - 1, 30));
    assertThat(d).isBetween(Duration.ZERO, Duration.ofMillis(ceiling));
  }

  @Test
  void settingsAreCheckedAsTheyAreSet() {
    assertThatThrownBy(() -> OriginProtection.builder().maxConcurrency(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrency: 0");
    assertThatThrownBy(() -> OriginProtection.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT2S..PT1S");
    assertThatThrownBy(() -> OriginProtection.builder().slidingWindow(5, 6))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minimumCalls: 6");
    assertThatThrownBy(() -> OriginProtection.builder().failureRateThreshold(0))
        .isInstanceOf(IllegalArgumentException.class);
    OriginProtection.Builder b = OriginProtection.builder();
    assertThatThrownBy(() -> b.maxAttempts(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(b.build().maxAttempts()).isEqualTo(OriginProtection.DEFAULT_MAX_ATTEMPTS); // untouched
  }
}
