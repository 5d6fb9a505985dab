package io.verglas.cache;

import io.verglas.cache.origin.ForwardingOrigin;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Delegates to a real origin, counts range reads and heads, and can hold range reads back (a gate)
 * or delay them, to make concurrency observable.
 */
public final class TestingCountingOrigin extends ForwardingOrigin {
  public final AtomicInteger rangeReads = new AtomicInteger();
  public final AtomicInteger heads = new AtomicInteger();
  public final AtomicInteger revalidations = new AtomicInteger();
  public final AtomicInteger failedRangeReads = new AtomicInteger();
  /** The most range reads that were in flight at once (reset it to measure a phase). */
  public final AtomicInteger maxConcurrentRangeReads = new AtomicInteger();
  private final AtomicInteger rangeReadsInFlight = new AtomicInteger();
  private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
  private volatile long delayMillis;
  /** While true, heads and range reads fail as an unreachable origin would. */
  public volatile boolean down;
  /** While true, PUTs and DELETEs fail as an unreachable origin would. */
  public volatile boolean writesDown;
  /** PUTs that reached the origin, by key. */
  public final java.util.Map<String, AtomicInteger> putsByKey = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile java.util.function.LongConsumer beforeRangeRead = offset -> { };
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "testing-origin-timer");
    t.setDaemon(true);
    return t;
  });

  public TestingCountingOrigin(Origin delegate) {
    super(delegate);
  }

  /** Range reads complete only after the returned future is completed. */
  public CompletableFuture<Void> closeGate() {
    CompletableFuture<Void> g = new CompletableFuture<>();
    gate = g;
    return g;
  }

  /** Runs before each range read reaches the delegate (e.g. to overwrite the object). */
  public void beforeRangeRead(java.util.function.LongConsumer hook) {
    beforeRangeRead = hook;
  }

  public void delayRangeReads(long millis) {
    delayMillis = millis;
  }

  /** Counts, waits for the gate, then (after the optional delay) reads from the delegate(). */
  @Override
  public CompletableFuture<byte[]> readRange(String bucket, String key, String etag, long offset, int length) {
    rangeReads.incrementAndGet();
    if (down) {
      failedRangeReads.incrementAndGet();
      return CompletableFuture.failedFuture(unreachable());
    }
    maxConcurrentRangeReads.accumulateAndGet(rangeReadsInFlight.incrementAndGet(), Math::max);
    return gate.thenCompose(v -> afterDelay())
        .thenCompose(v -> {
          beforeRangeRead.accept(offset);
          return delegate().readRange(bucket, key, etag, offset, length);
        })
        .whenComplete((data, error) -> {
          rangeReadsInFlight.decrementAndGet();
          if (error != null) {
            failedRangeReads.incrementAndGet();
          }
        });
  }

  private CompletableFuture<Void> afterDelay() {
    long delay = delayMillis;
    if (delay <= 0) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> later = new CompletableFuture<>();
    timer.schedule(() -> later.complete(null), delay, TimeUnit.MILLISECONDS);
    return later;
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    heads.incrementAndGet();
    if (down) {
      return CompletableFuture.failedFuture(unreachable());
    }
    return delegate().head(bucket, key);
  }

  @Override
  public CompletableFuture<java.util.Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    revalidations.incrementAndGet();
    return delegate().revalidate(bucket, key, etag);
  }

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    if (writesDown) {
      return CompletableFuture.failedFuture(unreachable());
    }
    return delegate().put(bucket, key, body, options).thenApply(result -> {
      putsByKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      return result;
    });
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    if (writesDown) {
      return CompletableFuture.failedFuture(unreachable());
    }
    return delegate().delete(bucket, key, condition);
  }

  private static Throwable unreachable() {
    return new java.io.UncheckedIOException(new java.net.ConnectException("Connection refused (testing origin is down)"));
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
