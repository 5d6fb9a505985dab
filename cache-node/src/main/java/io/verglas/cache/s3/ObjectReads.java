package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockLoader;
import io.verglas.cache.block.BlockRead;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * GetObject and HeadObject.
 *
 * <p>Version-atomic read path: the key is resolved to one {@link ObjectMeta} (one ETag) per
 * attempt; conditions, range and headers are computed from it, and every block is read as
 * {@code BlockId(bucket, key, etag, blockSize, i)}, from the cache or from the origin with that
 * ETag as precondition. If the object changes before the first block arrives, nothing has been
 * sent yet, so the attempt is retried against the new version; after the head is sent a change
 * aborts the connection (see {@link ObjectStreamer}).
 *
 * <p>Requests naming a versionId bypass the block and metadata caches and go to the origin.
 */
final class ObjectReads {
  private static final int MAX_ATTEMPTS = 3;

  private final Origin origin;
  private final ObjectMetaCache metas;
  private final BlockCache blocks;
  private final int blockSize;
  private final LongAdder bytesFromCache;

  ObjectReads(Origin origin, ObjectMetaCache metas, BlockCache blocks, int blockSize,
      LongAdder bytesFromCache) {
    this.origin = origin;
    this.metas = metas;
    this.blocks = blocks;
    this.blockSize = blockSize;
    this.bytesFromCache = bytesFromCache;
  }

  CompletableFuture<S3Response> read(S3Request r) {
    S3Headers.rejectUnsupportedRead(r);
    String versionId = r.param("versionId");
    if (versionId != null) {
      return readVersion(r, versionId);
    }
    return attempt(r, 1);
  }

  private CompletableFuture<S3Response> attempt(S3Request r, int attempt) {
    return metas.resolve(r.bucket, r.key).thenCompose(meta -> {
      Plan plan = plan(r, meta);
      if (plan.range() == null) {
        return CompletableFuture.completedFuture(plan.response());
      }
      ObjectStreamer streamer = new ObjectStreamer(index -> cachedBlock(r, meta, index),
          blockSize, plan.range().start(), plan.range().end(), bytesFromCache);
      return streamer.prefetch().handle((first, error) -> {
        if (error == null) {
          return CompletableFuture.completedFuture(plan.response().stream(streamer));
        }
        if (changedUnderneath(error) && attempt < MAX_ATTEMPTS) {
          metas.invalidate(r.bucket, r.key);
          return attempt(r, attempt + 1);
        }
        return CompletableFuture.<S3Response>failedFuture(explain(error));
      }).thenCompose(f -> f);
    });
  }

  private CompletableFuture<BlockRead> cachedBlock(S3Request r, ObjectMeta meta, long index) {
    BlockId id = new BlockId(r.bucket, r.key, meta.etag(), blockSize, index);
    BlockLoader loader = block -> {
      int length = block.lengthIn(meta.size());
      return origin.readRange(block.bucket(), block.key(), block.etag(), block.offset(), length)
          .whenComplete((data, error) -> {
            // The key moved on: drop its cached ETag so the client's retry sees the new version.
            if (error != null && changedUnderneath(error)) {
              metas.invalidate(block.bucket(), block.key());
            }
          })
          .thenApply(data -> checkLength(data, length, block.index()));
    };
    return blocks.get(id, loader);
  }

  private CompletableFuture<S3Response> readVersion(S3Request r, String versionId) {
    return origin.headVersion(r.bucket, r.key, versionId).thenCompose(meta -> {
      Plan plan = plan(r, meta);
      plan.response().header("x-amz-version-id", versionId);
      if (plan.range() == null) {
        return CompletableFuture.completedFuture(plan.response());
      }
      ObjectStreamer.BlockSource source = index -> {
        long offset = index * blockSize;
        int length = (int) Math.min(blockSize, meta.size() - offset);
        // The "null" version is the current object: pin it by ETag so blocks cannot mix versions.
        CompletableFuture<byte[]> data = Origin.NULL_VERSION.equals(versionId)
            ? origin.readRange(r.bucket, r.key, meta.etag(), offset, length)
            : origin.readVersionRange(r.bucket, r.key, versionId, offset, length);
        return data.thenApply(bytes -> new BlockRead(checkLength(bytes, length, index), false));
      };
      ObjectStreamer streamer = new ObjectStreamer(source, blockSize, plan.range().start(),
          plan.range().end(), bytesFromCache);
      return streamer.prefetch().handle((first, error) -> {
        if (error != null) {
          throw explain(error);
        }
        return plan.response().stream(streamer);
      });
    });
  }

  /** The response head, and the byte range to stream (null when there is no body). */
  private record Plan(S3Response response, HttpRange range) {}

  private static Plan plan(S3Request r, ObjectMeta meta) {
    S3Response notModified = S3Headers.evaluateRead(r, meta);
    if (notModified != null) {
      return new Plan(notModified, null);
    }
    HttpRange range = HttpRange.parse(r.header(HttpHeaderNames.RANGE), meta.size());
    S3Response response = S3Response.of(range == null ? HttpResponseStatus.OK : HttpResponseStatus.PARTIAL_CONTENT);
    S3Headers.addObjectHeaders(response, meta, r);
    long length = range == null ? meta.size() : range.length();
    response.header(HttpHeaderNames.CONTENT_LENGTH, length);
    if (range != null) {
      response.header(HttpHeaderNames.CONTENT_RANGE,
          "bytes " + range.start() + "-" + range.end() + "/" + meta.size());
    }
    if (r.isHead() || length == 0) {
      return new Plan(response, null);
    }
    return new Plan(response, range != null ? range : new HttpRange(0, meta.size() - 1));
  }

  private static byte[] checkLength(byte[] data, int expected, long index) {
    if (data.length != expected) {
      throw new IllegalStateException("The origin returned " + data.length + " bytes for block "
          + index + ", expected " + expected);
    }
    return data;
  }

  private static boolean changedUnderneath(Throwable error) {
    Throwable e = S3Errors.unwrap(error);
    return e instanceof OriginException o
        && (o.reason() == OriginException.Reason.PRECONDITION_FAILED
            || o.reason() == OriginException.Reason.NO_SUCH_KEY);
  }

  /** A version change seen by a block read is not the client's precondition failing. */
  private static RuntimeException explain(Throwable error) {
    Throwable e = S3Errors.unwrap(error);
    if (e instanceof OriginException o && o.reason() == OriginException.Reason.PRECONDITION_FAILED) {
      return new S3Exception(S3ErrorCode.SERVICE_UNAVAILABLE,
          "The object was replaced while it was being read; please retry", e);
    }
    return e instanceof RuntimeException re ? re : new java.util.concurrent.CompletionException(e);
  }
}
