package io.verglas.cache.protection;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.verglas.cache.origin.BucketInfo;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ForwardingOrigin;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.PartListing;
import io.verglas.cache.origin.PartRange;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * An {@link Origin} behind a circuit breaker, a concurrency limit and retries.
 *
 * <p>Design: every call is one template: ask the breaker (open: fail at once with
 * ServiceUnavailable, without touching the origin), take a slot of the {@link AsyncLimiter}
 * (full queue: fail at once with SlowDown), call, report the outcome to the breaker, and retry
 * if the failure is transient and the call may be repeated. The breaker is resilience4j's
 * count-based state machine, fed by hand because the calls are asynchronous; it counts origin
 * failures only (5xx, SlowDown, I/O errors, anything that is not an {@link OriginException}),
 * while answers such as NoSuchKey or PreconditionFailed prove a healthy origin.
 *
 * <p>What is retried: reads (HEAD, range reads, listings) and idempotent writes (UploadPart,
 * AbortMultipartUpload) after any transient failure; other writes only after SlowDown, which S3
 * sends before applying anything. A write whose outcome is unknown (a timeout, a 500) is never
 * repeated: a retried conditional PUT could fail its own condition, a retried copy could clobber
 * a newer write. Backoff before retry n is uniform in [0, min(max, base x 2^(n-1))] ("full
 * jitter", Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015).
 *
 * <p>An I/O failure that outlives its retries is reported as {@link OriginException.Reason#UNAVAILABLE}
 * (503 to the client), not as an internal error. Time (breaker), the backoff timer and the
 * jitter source are injected.
 */
public final class ProtectedOrigin extends ForwardingOrigin {
  private final OriginProtection settings;
  private final CircuitBreaker breaker;
  private final AsyncLimiter limiter;
  private final Delayer delayer;
  private final DoubleSupplier random;
  private final LongAdder attempts = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder shortCircuited = new LongAdder();
  private final LongAdder rejected = new LongAdder();

  /**
   * @param dispatcher starts calls that waited for a slot
   * @param random uniform in [0, 1): the backoff jitter
   */
  public ProtectedOrigin(Origin delegate, OriginProtection settings, Clock clock, Delayer delayer,
      DoubleSupplier random, Executor dispatcher) {
    super(delegate);
    this.settings = settings;
    this.delayer = delayer;
    this.random = random;
    this.limiter = new AsyncLimiter(settings.maxConcurrency(), settings.maxQueued(), dispatcher);
    this.breaker = CircuitBreaker.of("origin", CircuitBreakerConfig.custom()
        .slidingWindow(settings.slidingWindow(), settings.minimumCalls(),
            CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
        .failureRateThreshold(settings.failureRateThreshold())
        .waitDurationInOpenState(settings.openDuration())
        .permittedNumberOfCallsInHalfOpenState(Math.min(3, settings.minimumCalls()))
        .automaticTransitionFromOpenToHalfOpenEnabled(false)
        .clock(clock)
        .build());
  }

  /** "CLOSED", "OPEN", "HALF_OPEN" (or "DISABLED" when protection is off). */
  public String circuitState() {
    return settings.enabled() ? breaker.getState().name() : "DISABLED";
  }

  public long attempts() {
    return attempts.sum();
  }

  public long retries() {
    return retries.sum();
  }

  /** Calls that failed for an origin reason after their last attempt. */
  public long failures() {
    return failures.sum();
  }

  /** Calls failed at once because the breaker was open. */
  public long shortCircuited() {
    return shortCircuited.sum();
  }

  /** Calls refused because too many were waiting for a slot. */
  public long rejected() {
    return rejected.sum();
  }

  public int inFlight() {
    return limiter.inFlight();
  }

  public int queued() {
    return limiter.queued();
  }

  private <T> CompletableFuture<T> call(boolean idempotent, Supplier<CompletableFuture<T>> operation) {
    if (!settings.enabled()) {
      return invoke(operation);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    attempt(idempotent, operation, 1, result);
    return result;
  }

  private <T> void attempt(boolean idempotent, Supplier<CompletableFuture<T>> operation, int n,
      CompletableFuture<T> result) {
    if (!breaker.tryAcquirePermission()) {
      shortCircuited.increment();
      result.completeExceptionally(new OriginException(OriginException.Reason.UNAVAILABLE,
          "The origin is failing; requests to it are paused for up to " + settings.openDuration()
              + " (circuit open)"));
      return;
    }
    long start = System.nanoTime();
    limiter.submit(() -> {
      attempts.increment();
      return invoke(operation);
    }).whenComplete((value, error) -> {
      long elapsed = System.nanoTime() - start;
      if (error == null) {
        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
        result.complete(value);
        return;
      }
      Throwable cause = unwrap(error);
      if (cause instanceof AsyncLimiter.Rejected) {
        breaker.releasePermission();
        rejected.increment();
        result.completeExceptionally(new OriginException(OriginException.Reason.SLOW_DOWN,
            "Please reduce your request rate: " + cause.getMessage()));
        return;
      }
      boolean originFailure = isOriginFailure(cause);
      if (originFailure) {
        breaker.onError(elapsed, TimeUnit.NANOSECONDS, cause);
      } else {
        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
      }
      if (n < settings.maxAttempts() && retryable(cause, idempotent)) {
        retries.increment();
        delayer.after(backoff(n)).whenComplete((v, e) -> attempt(idempotent, operation, n + 1, result));
        return;
      }
      if (originFailure) {
        failures.increment();
      }
      result.completeExceptionally(isTransientIo(cause)
          ? new OriginException(OriginException.Reason.UNAVAILABLE,
              "Cannot reach the origin after " + n + " attempt(s): " + cause.getMessage(), cause)
          : cause);
    });
  }

  private static boolean isTransientIo(Throwable cause) {
    return cause instanceof IOException || cause instanceof UncheckedIOException
        || cause instanceof TimeoutException;
  }

  /** Backoff before retry {@code n} (n = 1 for the first retry): full jitter. */
  Duration backoff(int n) {
    long base = settings.baseBackoff().toNanos();
    long cap = settings.maxBackoff().toNanos();
    long ceiling = n >= 62 ? cap : Math.min(cap, base << Math.min(n - 1, 30));
    return Duration.ofNanos((long) (random.getAsDouble() * ceiling));
  }

  private static <T> CompletableFuture<T> invoke(Supplier<CompletableFuture<T>> operation) {
    try {
      CompletableFuture<T> f = operation.get();
      return f != null ? f : CompletableFuture.failedFuture(new IllegalStateException("The origin returned no future"));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Failures that say the origin is unwell (as opposed to answers about the request). */
  static boolean isOriginFailure(Throwable cause) {
    if (cause instanceof OriginException o) {
      return o.reason() == OriginException.Reason.UNAVAILABLE
          || o.reason() == OriginException.Reason.SLOW_DOWN;
    }
    return true;
  }

  static boolean retryable(Throwable cause, boolean idempotent) {
    if (cause instanceof OriginException o) {
      return o.reason() == OriginException.Reason.SLOW_DOWN
          || (idempotent && o.reason() == OriginException.Reason.UNAVAILABLE);
    }
    return idempotent && isTransientIo(cause);
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    return call(true, delegate()::listBuckets);
  }

  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    return call(true, () -> delegate().bucketExists(bucket));
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    return call(false, () -> delegate().createBucket(bucket));
  }

  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    return call(false, () -> delegate().deleteBucket(bucket));
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    return call(true, () -> delegate().head(bucket, key));
  }

  @Override
  public CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    return call(true, () -> delegate().revalidate(bucket, key, etag));
  }

  @Override
  public CompletableFuture<PartRange> partRange(
      String bucket, String key, String etag, int partNumber) {
    return call(true, () -> delegate().partRange(bucket, key, etag, partNumber));
  }

  @Override
  public CompletableFuture<byte[]> readRange(String bucket, String key, String expectedEtag, long offset, int length) {
    return call(true, () -> delegate().readRange(bucket, key, expectedEtag, offset, length));
  }

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    return call(false, () -> delegate().put(bucket, key, body, options));
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    return call(false, () -> delegate().delete(bucket, key, condition));
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    return call(false, () -> delegate().copy(request));
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    return call(true, () -> delegate().list(request));
  }

  @Override
  public CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options) {
    return call(false, () -> delegate().createMultipartUpload(bucket, key, options));
  }

  @Override
  public CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    return call(true, () -> delegate().uploadPart(upload, partNumber, body));
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(MultipartUpload upload,
      List<CompletedPart> parts, WriteCondition condition) {
    return call(false, () -> delegate().completeMultipartUpload(upload, parts, condition));
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    return call(true, () -> delegate().abortMultipartUpload(upload));
  }

  @Override
  public CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    return call(true, () -> delegate().listParts(upload, partNumberMarker, maxParts));
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    return call(true, () -> delegate().listUploads(request));
  }

  @Override
  public CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    return call(true, () -> delegate().headVersion(bucket, key, versionId));
  }

  @Override
  public CompletableFuture<byte[]> readVersionRange(String bucket, String key, String versionId, long offset, int length) {
    return call(true, () -> delegate().readVersionRange(bucket, key, versionId, offset, length));
  }

  @Override
  public CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    return call(false, () -> delegate().deleteVersion(bucket, key, versionId));
  }
}
