package io.verglas.cache.writeback;

import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ForwardingOrigin;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The origin as a cache node with write-back sees it: the real origin with the buffered changes
 * of the configured scopes laid over it.
 *
 * <p>Design. Writes: an unconditional PUT of a key in scope is staged ({@link WriteBackStager})
 * and answered with the body's MD5 as its ETag, the ETag the origin gives it later; the stager's
 * degraded outcomes write through. An unconditional DELETE of a key with buffered changes is
 * journaled after them, with the origin's state a HEAD found (see {@link OriginExpectation}:
 * propagation deletes only that state, or one a buffered change leaves); of any other key it goes
 * to the origin. A conditional PUT or DELETE of
 * a key another coordinator holds a buffered change of is checked against the key's latest
 * buffered change ({@link BufferedCondition}: what a GET here returns) and, if it holds, staged
 * or journaled like an unconditional one, its acknowledgement stamp after that change's; the
 * check and the staging are not one atomic step (a change of the key acknowledged between them,
 * here or elsewhere, is not seen by the check). Every other write the origin must see in order
 * with the buffered changes (a conditional PUT and DELETE of a key only this node holds changes
 * of, copy to or from a key with buffered changes, multipart completion, a PUT the stager writes
 * through) first drains the key's buffered changes to the origin ({@link Propagator#drain});
 * while the origin is down, or another coordinator holds a change of the key, such a write fails
 * with 503. Multipart uploads are written through. Reads: HEAD, revalidation and
 * range reads of a key whose latest change is buffered are answered from the journal record and
 * by reconstruction from the fragments; a buffered delete reads as NoSuchKey; listings are
 * merged ({@link PendingListing}). The last acknowledged change of a key wins: the stager's
 * index holds it. Blocking work (staging, fsyncs, reconstruction, draining) runs on {@code
 * blocking}, never on the caller's thread.
 */
final class WriteBackOrigin extends ForwardingOrigin {
  private final WriteBackConfig config;
  private final WriteBackStager stager;
  private final Propagator propagator;
  private final Executor blocking;
  private final Consumer<StageOutcome> outcomes;

  WriteBackOrigin(Origin origin, WriteBackConfig config, WriteBackStager stager, Propagator propagator,
      Executor blocking, Consumer<StageOutcome> outcomes) {
    super(origin);
    this.config = config;
    this.stager = stager;
    this.propagator = propagator;
    this.blocking = blocking;
    this.outcomes = outcomes;
  }

  private Optional<JournalRecord.Pending> pending(String bucket, String key) {
    return config.coversBucket(bucket) ? stager.latest(bucket, key) : Optional.empty();
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    return pending(bucket, key).map(p -> CompletableFuture.completedFuture(meta(p)))
        .orElseGet(() -> delegate().head(bucket, key));
  }

  @Override
  public CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    return pending(bucket, key).map(p -> {
      ObjectMeta meta = meta(p);
      return CompletableFuture.completedFuture(ETags.matches(meta.etag(), etag) ? Optional.<ObjectMeta>empty()
          : Optional.of(meta));
    }).orElseGet(() -> delegate().revalidate(bucket, key, etag));
  }

  private static ObjectMeta meta(JournalRecord.Pending pending) {
    if (pending instanceof JournalRecord.Staged staged) {
      return WriteBackMetadata.meta(staged);
    }
    throw new OriginException(OriginException.Reason.NO_SUCH_KEY, "The specified key does not exist: "
        + pending.identity().key() + " (deleted; the delete is on its way to the origin)");
  }

  @Override
  public CompletableFuture<byte[]> readRange(String bucket, String key, String expectedEtag, long offset, int length) {
    Optional<JournalRecord.Pending> pending = pending(bucket, key);
    if (pending.isEmpty() || !(pending.get() instanceof JournalRecord.Staged staged)
        || !ETags.matches(WriteBackMetadata.etag(staged), expectedEtag)) {
      return delegate().readRange(bucket, key, expectedEtag, offset, length);
    }
    return this.<byte[]>blocking(() -> {
      try (InputStream body = stager.open(staged)) {
        body.skipNBytes(offset);
        return body.readNBytes(length);
      }
    }).exceptionallyCompose(e -> stager.latest(bucket, key).filter(staged::equals).isPresent()
        ? CompletableFuture.failedFuture(e)
        // propagated (fragments released) meanwhile: the origin has this version now, same ETag
        : delegate().readRange(bucket, key, expectedEtag, offset, length));
  }

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    if (!config.covers(bucket, key) || !options.condition().isNone() && !stager.heldElsewhere(bucket, key)) {
      return afterDrain(bucket, key, () -> delegate().put(bucket, key, body, options));
    }
    return blocking(() -> {
      requireBuffered(bucket, key, options.condition());
      return stage(bucket, key, body, options.withCondition(WriteCondition.NONE));
    });
  }

  /**
   * Checks a write's condition against the key's latest buffered change (one is another
   * coordinator's: it cannot be drained from here, so the origin cannot check the condition).
   */
  private void requireBuffered(String bucket, String key, WriteCondition condition) {
    if (condition.isNone()) {
      return;
    }
    BufferedCondition.require(condition, stager.latest(bucket, key).orElseThrow(() -> new OriginException(
        OriginException.Reason.UNAVAILABLE, "Cannot check the condition of a write of " + bucket + "/" + key
            + ": its buffered change reached the origin meanwhile; retry")));
  }

  private PutResult stage(String bucket, String key, ObjectBody body, WriteOptions options) throws IOException {
    ThroughWriter through = new ThroughWriter(body, options);
    CompletableFuture<String> originState = OriginExpectation.stateOf(delegate().head(bucket, key));
    try (InputStream in = body.openStream()) {
      // md5 is null only when the stager writes through before reading the body: ThroughWriter ignores it then
      StageOutcome outcome = stager.put(bucket, key, md5 -> md5 == null ? WriteBackMetadata.of(options, null)
          : WriteBackMetadata.of(options, ETags.ofMd5(md5),
              OriginExpectation.of(originState, stager.changes(bucket, key))), body.length(), in, through);
      outcomes.accept(outcome);
      if (outcome instanceof StageOutcome.Acknowledged acked) {
        return new PutResult(WriteBackMetadata.etag(acked.record()), Instant.ofEpochMilli(acked.record().stagedAtMillis()));
      }
      return through.result;
    } catch (WriteBackFailedException e) {
      throw new OriginException(OriginException.Reason.UNAVAILABLE, e.getMessage(), e);
    }
  }

  /** A PUT the stager could not stage: the client's body goes to the origin after the key's buffered changes. */
  private final class ThroughWriter implements OriginWriter {
    private final ObjectBody body;
    private final WriteOptions options;
    private PutResult result;

    ThroughWriter(ObjectBody body, WriteOptions options) {
      this.body = body;
      this.options = options;
    }

    @Override
    public void put(String bucket, String key, Map<String, String> metadata, long length, InputStream ignored)
        throws IOException {
      propagator.drain(bucket, key);
      result = OriginApplier.await(delegate().put(bucket, key, body, options));
    }

    @Override
    public void delete(String bucket, String key, Map<String, String> metadata) throws IOException {
      propagator.drain(bucket, key);
      OriginApplier.await(delegate().delete(bucket, key, WriteCondition.NONE));
    }
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    if (config.covers(bucket, key) && (condition.isNone() ? stager.latest(bucket, key).isPresent()
        : stager.heldElsewhere(bucket, key))) {
      CompletableFuture<String> originState = OriginExpectation.stateOf(delegate().head(bucket, key));
      return blocking(() -> {
        requireBuffered(bucket, key, condition);
        stager.delete(bucket, key, originState);
        return null;
      });
    }
    return afterDrain(bucket, key, () -> delegate().delete(bucket, key, condition));
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    return afterDrain(request.sourceBucket(), request.sourceKey(),
        () -> afterDrain(request.bucket(), request.key(), () -> delegate().copy(request)));
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(MultipartUpload upload, List<CompletedPart> parts,
      WriteCondition condition) {
    return afterDrain(upload.bucket(), upload.key(), () -> delegate().completeMultipartUpload(upload, parts, condition));
  }

  @Override
  public CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    return afterDrain(bucket, key, () -> delegate().deleteVersion(bucket, key, versionId));
  }

  @Override
  public CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    return NULL_VERSION.equals(versionId) && pending(bucket, key).isPresent() ? head(bucket, key)
        : delegate().headVersion(bucket, key, versionId);
  }

  @Override
  public CompletableFuture<byte[]> readVersionRange(String bucket, String key, String versionId, long offset,
      int length) {
    return NULL_VERSION.equals(versionId) && pending(bucket, key).isPresent()
        ? head(bucket, key).thenCompose(meta -> readRange(bucket, key, meta.etag(), offset, length))
        : delegate().readVersionRange(bucket, key, versionId, offset, length);
  }

  /** Runs {@code write} once the key's buffered changes reached the origin (at once when it has none). */
  private <T> CompletableFuture<T> afterDrain(String bucket, String key, Supplier<CompletableFuture<T>> write) {
    if (pending(bucket, key).isEmpty()) {
      return write.get();
    }
    return blocking(() -> {
      propagator.drain(bucket, key);
      return null;
    }).thenCompose(v -> write.get());
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    if (!config.coversBucket(request.bucket()) || request.maxKeys() == 0) {
      return delegate().list(request);
    }
    ListRequest unwrapped;
    try {
      unwrapped = PendingListing.originRequest(request);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(new OriginException(OriginException.Reason.INVALID_ARGUMENT,
          e.getMessage()));
    }
    return delegate().list(unwrapped).thenApply(page -> PendingListing.merge(request, page,
        stager.latestUnder(request.bucket(), request.prefix())));
  }

  private <T> CompletableFuture<T> blocking(Callable<T> work) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return work.call();
      } catch (OriginException e) {
        throw e;
      } catch (Exception e) {
        throw new CompletionException(new OriginException(OriginException.Reason.UNAVAILABLE,
            "Cannot complete a write-back operation: " + e.getMessage(), e));
      }
    }, blocking);
  }
}
