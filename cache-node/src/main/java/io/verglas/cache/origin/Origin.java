package io.verglas.cache.origin;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The object store behind a cache node. Every method is asynchronous: the node's event loops
 * never block on an origin, and an SDK-based origin can hand back its client's futures as they
 * are. Failures a client should see complete the future with an {@link OriginException}.
 *
 * <p>Version atomicity rests on {@link #readRange}: it reads from the version with the expected
 * ETag or fails with {@link OriginException.Reason#PRECONDITION_FAILED}, never from another
 * version. ETags are quoted as S3 sends them.
 *
 * <p>Versioned access ({@code versionId}) bypasses the cache. Origins without versioning keep
 * the default methods, which accept only the version id {@code "null"} (the current object), as
 * S3 does for unversioned buckets.
 *
 * <p>The caller owns the origin and closes it; a cache node never closes its origin.
 */
public interface Origin extends AutoCloseable {
  String NULL_VERSION = "null";

  CompletableFuture<List<BucketInfo>> listBuckets();

  CompletableFuture<Boolean> bucketExists(String bucket);

  CompletableFuture<Void> createBucket(String bucket);

  /**
   * Creates {@code bucket} unless it exists (what a node over a fresh origin does at start);
   * a failure names the origin's answer.
   */
  default void ensureBucket(String bucket) {
    try {
      if (!bucketExists(bucket).join()) {
        createBucket(bucket).join();
      }
    } catch (CompletionException e) {
      throw new IllegalStateException("Cannot use the origin's bucket " + bucket + ": "
          + e.getCause().getMessage(), e.getCause());
    }
  }

  CompletableFuture<Void> deleteBucket(String bucket);

  CompletableFuture<ObjectMeta> head(String bucket, String key);

  /**
   * Revalidates a cached version ({@code If-None-Match: etag}): completes empty if the current
   * version still has {@code etag}, else with the current version's metadata. The default asks
   * {@link #head} and compares; an origin that can answer 304 Not Modified should.
   */
  default CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    return head(bucket, key).thenApply(meta ->
        ETags.matches(meta.etag(), etag) ? Optional.empty() : Optional.of(meta));
  }

  /** Reads {@code length} bytes at {@code offset} of the version whose ETag is expectedEtag. */
  CompletableFuture<byte[]> readRange(
      String bucket, String key, String expectedEtag, long offset, int length);

  CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options);

  /** Deletes the current object; deleting a missing key succeeds unless a condition is set. */
  CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition);

  CompletableFuture<PutResult> copy(CopyRequest request);

  CompletableFuture<ListPage> list(ListRequest request);

  CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options);

  /** Stores one part (1..10000) and returns its quoted ETag. */
  CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body);

  CompletableFuture<PutResult> completeMultipartUpload(
      MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition);

  CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload);

  CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts);

  /** Multipart uploads in progress, in key then upload-id order. The default: unsupported. */
  default CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    return CompletableFuture.failedFuture(new OriginException(OriginException.Reason.NOT_IMPLEMENTED,
        "Cannot list multipart uploads: this origin (" + getClass().getSimpleName() + ") does not support it"));
  }

  /**
   * Where part {@code partNumber} of the multipart object with ETag {@code etag} lies (GetObject
   * with {@code ?partNumber}); fails with PRECONDITION_FAILED if the current version has another
   * ETag. The default: unsupported.
   */
  default CompletableFuture<PartRange> partRange(String bucket, String key, String etag, int partNumber) {
    return CompletableFuture.failedFuture(new OriginException(OriginException.Reason.NOT_IMPLEMENTED,
        "Cannot read one part of a multipart object: not supported by this origin ("
            + getClass().getSimpleName() + ")"));
  }

  default CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    return NULL_VERSION.equals(versionId)
        ? head(bucket, key)
        : CompletableFuture.failedFuture(noSuchVersion(versionId));
  }

  default CompletableFuture<byte[]> readVersionRange(
      String bucket, String key, String versionId, long offset, int length) {
    if (!NULL_VERSION.equals(versionId)) {
      return CompletableFuture.failedFuture(noSuchVersion(versionId));
    }
    return head(bucket, key).thenCompose(meta -> readRange(bucket, key, meta.etag(), offset, length));
  }

  default CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    return NULL_VERSION.equals(versionId)
        ? delete(bucket, key, WriteCondition.NONE)
        : CompletableFuture.failedFuture(noSuchVersion(versionId));
  }

  @Override
  void close();

  private static OriginException noSuchVersion(String versionId) {
    return new OriginException(
        OriginException.Reason.INVALID_ARGUMENT,
        "Invalid version id specified: " + versionId
            + " (this origin keeps only the current version, version id \"null\")");
  }
}
