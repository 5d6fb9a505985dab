package io.verglas.cache.origin;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Tells a {@link OriginRequestListener} of every call made to an origin, with the bucket and
 * the key (or prefix) it names, then makes it. The cache node counts its origin requests with
 * one; a benchmark counts them per table with another.
 */
public final class ObservedOrigin extends ForwardingOrigin {
  private final OriginRequestListener listener;

  public ObservedOrigin(Origin delegate, OriginRequestListener listener) {
    super(Objects.requireNonNull(delegate, "delegate"));
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    listener.request("", "");
    return super.listBuckets();
  }

  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    listener.request(bucket, "");
    return super.bucketExists(bucket);
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    listener.request(bucket, "");
    return super.createBucket(bucket);
  }

  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    listener.request(bucket, "");
    return super.deleteBucket(bucket);
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    listener.request(bucket, key);
    return super.head(bucket, key);
  }

  @Override
  public CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    listener.request(bucket, key);
    return super.revalidate(bucket, key, etag);
  }

  @Override
  public CompletableFuture<PartRange> partRange(
      String bucket, String key, String etag, int partNumber) {
    listener.request(bucket, key);
    return super.partRange(bucket, key, etag, partNumber);
  }

  @Override
  public CompletableFuture<byte[]> readRange(
      String bucket, String key, String expectedEtag, long offset, int length) {
    listener.request(bucket, key);
    return super.readRange(bucket, key, expectedEtag, offset, length);
  }

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    listener.request(bucket, key);
    return super.put(bucket, key, body, options);
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    listener.request(bucket, key);
    return super.delete(bucket, key, condition);
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    listener.request(request.bucket(), request.key());
    return super.copy(request);
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    listener.request(request.bucket(), nonNull(request.prefix()));
    return super.list(request);
  }

  @Override
  public CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options) {
    listener.request(bucket, key);
    return super.createMultipartUpload(bucket, key, options);
  }

  @Override
  public CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    listener.request(upload.bucket(), upload.key());
    return super.uploadPart(upload, partNumber, body);
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(
      MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition) {
    listener.request(upload.bucket(), upload.key());
    return super.completeMultipartUpload(upload, parts, condition);
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    listener.request(upload.bucket(), upload.key());
    return super.abortMultipartUpload(upload);
  }

  @Override
  public CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    listener.request(upload.bucket(), upload.key());
    return super.listParts(upload, partNumberMarker, maxParts);
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    listener.request(request.bucket(), nonNull(request.prefix()));
    return super.listUploads(request);
  }

  @Override
  public CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    listener.request(bucket, key);
    return super.headVersion(bucket, key, versionId);
  }

  @Override
  public CompletableFuture<byte[]> readVersionRange(
      String bucket, String key, String versionId, long offset, int length) {
    listener.request(bucket, key);
    return super.readVersionRange(bucket, key, versionId, offset, length);
  }

  @Override
  public CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    listener.request(bucket, key);
    return super.deleteVersion(bucket, key, versionId);
  }

  private static String nonNull(String prefix) {
    return prefix == null ? "" : prefix;
  }
}
