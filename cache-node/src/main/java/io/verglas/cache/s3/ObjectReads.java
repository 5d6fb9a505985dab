package io.verglas.cache.s3;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.block.BlockLoader;
import io.verglas.cache.block.BlockRead;
import io.verglas.cache.block.MetadataStore;
import io.verglas.cache.block.MissPath;
import io.verglas.cache.iceberg.IcebergPaths;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.PartRange;
import java.util.Set;
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
 * <p>Iceberg metadata objects (up to the metadata store's entry limit) and Parquet footers are
 * served from the {@link MetadataStore}, apart from data blocks. A footer is looked for when a
 * short suffix of a Parquet file is read (how readers find the footer); once stored, any read
 * inside it is served from it.
 *
 * <p>Requests naming a versionId bypass the block and metadata caches and go to the origin.
 *
 * <p>What clients read is told to the {@link ReadObserver} once per response: an in-memory
 * body (metadata, a footer) when it is ready, a streamed body when the response ends, with the
 * bytes actually handed to the socket rather than the range asked for (see
 * {@link ObjectStreamer}): a reader that asks for {@code bytes=N-} and stops after one column
 * chunk has read that chunk, not the rest of the file. Reads of a version are not told.
 *
 * <p>Reads signed with a background access key (the operator's compaction and maintenance
 * jobs) are served from what is cached like any other, but are not told to the
 * {@link ReadObserver} (they are not the clients' heat) and their misses are not admitted to
 * the block tiers or the metadata store (a rewrite reading a whole table must not evict the
 * working set).
 *
 * <p>{@code ?partNumber=n} reads one part as a range of the resolved version: the whole object
 * for an object in one piece, else the range the origin names for that ETag
 * ({@link Origin#partRange}).
 */
final class ObjectReads {
  private static final int MAX_ATTEMPTS = 3;

  private final Origin origin;
  private final ObjectMetaCache metas;
  private final BlockCache blocks;
  private final MetadataStore metadata;
  private final int blockSize;
  private final LongAdder bytesFromCache;
  private final ReadObserver observer;
  private final Set<String> backgroundAccessKeys;
  private final MissPath missPath;

  ObjectReads(Origin origin, ObjectMetaCache metas, BlockCache blocks, MetadataStore metadata,
      int blockSize, LongAdder bytesFromCache, ReadObserver observer, Set<String> backgroundAccessKeys,
      MissPath missPath) {
    this.missPath = missPath;
    this.origin = origin;
    this.metas = metas;
    this.blocks = blocks;
    this.metadata = metadata;
    this.blockSize = blockSize;
    this.bytesFromCache = bytesFromCache;
    this.observer = observer;
    this.backgroundAccessKeys = Set.copyOf(backgroundAccessKeys);
  }

  CompletableFuture<S3Response> read(S3Request r, Authentication auth) {
    S3Headers.rejectUnsupportedRead(r);
    String versionId = r.param("versionId");
    int partNumber = partNumber(r);
    if (versionId != null) {
      if (partNumber != 0) {
        throw S3Exception.notImplemented("GetObject/HeadObject of one part (?partNumber) of a version");
      }
      return readVersion(r, versionId);
    }
    boolean background = auth != null && !auth.anonymous() && backgroundAccessKeys.contains(auth.accessKey());
    return attempt(r, partNumber, background, 1);
  }

  private CompletableFuture<S3Response> attempt(S3Request r, int partNumber, boolean background,
      int attempt) {
    return metas.resolve(r.bucket, r.key).thenCompose(meta -> part(r, meta, partNumber).handle((part, error) -> {
      if (error == null) {
        return attempt(r, meta, part, background, attempt);
      }
      if (changedUnderneath(error) && attempt < MAX_ATTEMPTS) {
        metas.invalidate(r.bucket, r.key);
        return attempt(r, partNumber, background, attempt + 1);
      }
      return CompletableFuture.<S3Response>failedFuture(explain(error));
    }).thenCompose(f -> f));
  }

  private CompletableFuture<S3Response> attempt(S3Request r, ObjectMeta meta, PartRange part,
      boolean background, int attempt) {
    Plan plan = plan(r, meta, part);
    if (plan.range() == null) {
      return CompletableFuture.completedFuture(plan.response());
    }
    return body(r, meta, plan, background).handle((response, error) -> {
      if (error == null) {
        if (!background && response.stream() == null) {
          observe(r, plan.range().start(), plan.range().end(), true);
        }
        return CompletableFuture.completedFuture(response);
      }
      if (changedUnderneath(error) && attempt < MAX_ATTEMPTS) {
        metas.invalidate(r.bucket, r.key);
        return attempt(r, partNumber(r), background, attempt + 1);
      }
      return CompletableFuture.<S3Response>failedFuture(explain(error));
    }).thenCompose(f -> f);
  }

  /**
   * Where part {@code partNumber} of this version lies (null when no part was asked for). An
   * object uploaded in one piece has one part, the whole object; the parts of a multipart
   * object come from the origin.
   */
  private CompletableFuture<PartRange> part(S3Request r, ObjectMeta meta, int partNumber) {
    if (partNumber == 0) {
      return CompletableFuture.completedFuture(null);
    }
    if (ObjectAttributes.partsCount(meta.etag()) == 0) {
      return CompletableFuture.completedFuture(partNumber == 1 && meta.size() > 0
          ? new PartRange(1, 0, meta.size() - 1) : PartRange.beyond(1));
    }
    return origin.partRange(r.bucket, r.key, meta.etag(), partNumber);
  }

  /**
   * The response with its body: from the metadata store for Iceberg metadata objects and
   * Parquet footers, else streamed from blocks (completing once the first block is there).
   */
  private CompletableFuture<S3Response> body(S3Request r, ObjectMeta meta, Plan plan, boolean background) {
    HttpRange range = plan.range();
    if (metadata != null && background) {
      return heldMetadata(r, meta, plan);
    }
    if (metadata != null) {
      MetadataStore.RangeReader reader = (offset, length) -> versionRead(r.bucket, r.key, meta.etag(), offset, length);
      if (IcebergPaths.isMetadata(r.key) && meta.size() <= metadata.maxEntryBytes()) {
        return metadata.object(r.bucket, r.key, meta.etag(), meta.size(), reader)
            .thenApply(cached -> slice(plan, cached.data(), 0, cached.fromCache()));
      }
      if (IcebergPaths.isParquet(r.key)) {
        CompletableFuture<S3Response> footer = storedFooter(r, meta, plan);
        if (footer != null) {
          return footer;
        }
        if (looksForFooter(range, meta.size())) {
          return metadata.footer(r.bucket, r.key, meta.etag(), meta.size(), reader).thenCompose(cached -> {
            long start = meta.size() - cached.data().length;
            if (cached.data().length > 0 && range.start() >= start) {
              return CompletableFuture.completedFuture(slice(plan, cached.data(), start, cached.fromCache()));
            }
            return streamBlocks(r, meta, plan, background);
          });
        }
      }
    }
    return streamBlocks(r, meta, plan, background);
  }

  /** A background read: what the metadata store holds serves it; nothing is loaded into it. */
  private CompletableFuture<S3Response> heldMetadata(S3Request r, ObjectMeta meta, Plan plan) {
    if (IcebergPaths.isMetadata(r.key)) {
      byte[] object = metadata.objectIfPresent(r.bucket, r.key, meta.etag());
      if (object != null) {
        return CompletableFuture.completedFuture(slice(plan, object, 0, true));
      }
    } else if (IcebergPaths.isParquet(r.key)) {
      CompletableFuture<S3Response> footer = storedFooter(r, meta, plan);
      if (footer != null) {
        return footer;
      }
    }
    return streamBlocks(r, meta, plan, true);
  }

  /** The read served from the stored footer of the Parquet file when it covers the range, else null. */
  private CompletableFuture<S3Response> storedFooter(S3Request r, ObjectMeta meta, Plan plan) {
    byte[] footer = metadata.footerCovering(r.bucket, r.key, meta.etag(), meta.size(), plan.range().start());
    return footer == null ? null
        : CompletableFuture.completedFuture(slice(plan, footer, meta.size() - footer.length, true));
  }

  /**
   * Tells the observer of a client's read of {@code [first, last]}: an in-memory body (metadata,
   * a footer) as soon as it is ready, a streamed one when it ends, with the bytes delivered.
   */
  private void observe(S3Request r, long first, long last, boolean whole) {
    try {
      if (whole) {
        observer.onRead(r.bucket, r.key, first, last);
      } else {
        observer.onCutShortRead(r.bucket, r.key, first, last);
      }
    } catch (RuntimeException e) {
      // an observer must not fail a read
    }
  }

  /** A short suffix read (not the whole object): how Parquet readers find the footer. */
  private static boolean looksForFooter(HttpRange range, long size) {
    return range.end() == size - 1 && range.start() > 0
        && range.length() <= MetadataStore.FOOTER_PROBE_BYTES;
  }

  private CompletableFuture<S3Response> streamBlocks(S3Request r, ObjectMeta meta, Plan plan,
      boolean background) {
    ObjectStreamer.Delivery delivery = background ? ObjectStreamer.Delivery.NONE
        : (first, last, whole) -> observe(r, first, last, whole);
    ObjectStreamer streamer = new ObjectStreamer(index -> cachedBlock(r, meta, index, background),
        blockSize, plan.range().start(), plan.range().end(), bytesFromCache, delivery);
    return streamer.prefetch().handle((first, error) -> {
      if (error != null) {
        streamer.abort(); // release the blocks read ahead
        throw error instanceof java.util.concurrent.CompletionException ce
            ? ce : new java.util.concurrent.CompletionException(error);
      }
      return plan.response().stream(streamer);
    });
  }

  /** The planned range out of {@code data}, which holds the object's bytes from {@code dataStart}. */
  private S3Response slice(Plan plan, byte[] data, long dataStart, boolean fromCache) {
    int from = (int) (plan.range().start() - dataStart);
    int length = (int) plan.range().length();
    if (fromCache) {
      bytesFromCache.add(length);
    }
    return plan.response().content(data, from, length);
  }

  /** A read of the version with {@code etag}; a change of the key drops its cached ETag. */
  CompletableFuture<byte[]> versionRead(String bucket, String key, String etag, long offset, int length) {
    return origin.readRange(bucket, key, etag, offset, length)
        .whenComplete((data, error) -> {
          if (error != null && changedUnderneath(error)) {
            metas.invalidate(bucket, key);
          }
        })
        .thenApply(data -> checkLength(data, length, offset));
  }

  private CompletableFuture<BlockRead> cachedBlock(S3Request r, ObjectMeta meta, long index,
      boolean background) {
    BlockId id = new BlockId(r.bucket, r.key, meta.etag(), blockSize, index);
    BlockLoader loader = missPath.loader(block -> versionRead(block.bucket(), block.key(), block.etag(),
        block.offset(), block.lengthIn(meta.size())), meta.size());
    return background ? blocks.getWithoutAdmission(id, loader) : blocks.get(id, loader);
  }

  private CompletableFuture<S3Response> readVersion(S3Request r, String versionId) {
    return origin.headVersion(r.bucket, r.key, versionId).thenCompose(meta -> {
      Plan plan = plan(r, meta, null);
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
        return data.thenApply(bytes -> new BlockRead(Unpooled.wrappedBuffer(checkLength(bytes, length, offset)), false));
      };
      ObjectStreamer streamer = new ObjectStreamer(source, blockSize, plan.range().start(),
          plan.range().end(), bytesFromCache, ObjectStreamer.Delivery.NONE);
      return streamer.prefetch().handle((first, error) -> {
        if (error != null) {
          streamer.abort();
          throw explain(error);
        }
        return plan.response().stream(streamer);
      });
    });
  }

  /** The response head, and the byte range to stream (null when there is no body). */
  private record Plan(S3Response response, HttpRange range) {}

  private static Plan plan(S3Request r, ObjectMeta meta, PartRange part) {
    S3Response notModified = S3Headers.evaluateRead(r, meta);
    if (notModified != null) {
      return new Plan(notModified, null);
    }
    HttpRange range = part != null
        ? partRange(part, r)
        : HttpRange.parse(r.header(HttpHeaderNames.RANGE), meta.size());
    S3Response response = S3Response.of(range == null ? HttpResponseStatus.OK : HttpResponseStatus.PARTIAL_CONTENT);
    S3Headers.addObjectHeaders(response, meta, r);
    if (part != null && ObjectAttributes.partsCount(meta.etag()) > 0) {
      response.header("x-amz-mp-parts-count", part.partsCount());
    }
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

  /**
   * The part number of {@code ?partNumber=n}, 0 if absent. S3 refuses it beside a Range header
   * and outside 1..10000.
   */
  private static int partNumber(S3Request r) {
    if (!r.hasParam("partNumber")) {
      return 0;
    }
    if (r.header(HttpHeaderNames.RANGE) != null) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "Cannot specify both Range header and partNumber query parameter");
    }
    int partNumber;
    try {
      partNumber = Integer.parseInt(r.param("partNumber").trim());
    } catch (NumberFormatException e) {
      partNumber = 0;
    }
    if (partNumber < 1 || partNumber > 10_000) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "Part number must be an integer between 1 and 10000, inclusive")
          .detail("ArgumentName", "partNumber").detail("ArgumentValue", r.param("partNumber"));
    }
    return partNumber;
  }

  /** The byte range of a part, served as S3 does: as a range (206); 416 beyond the last part. */
  private static HttpRange partRange(PartRange part, S3Request r) {
    if (!part.exists()) {
      throw new S3Exception(S3ErrorCode.INVALID_PART_NUMBER, "The requested partnumber is not satisfiable")
          .detail("PartNumberRequested", r.param("partNumber"))
          .detail("ActualPartCount", Integer.toString(part.partsCount()));
    }
    return new HttpRange(part.start(), part.end());
  }

  private static byte[] checkLength(byte[] data, int expected, long offset) {
    if (data.length != expected) {
      throw new IllegalStateException("The origin returned " + data.length + " bytes at offset "
          + offset + ", expected " + expected);
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
