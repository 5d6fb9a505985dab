package io.verglas.cache.s3;

import io.verglas.cache.origin.BucketInfo;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.PartListing;
import io.verglas.cache.origin.PartRange;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/** Counts every call the node makes to its origin (the "origin requests" statistic). */
final class MeteredOrigin implements Origin {
  private final Origin delegate;
  private final LongAdder requests = new LongAdder();

  MeteredOrigin(Origin delegate) {
    this.delegate = delegate;
  }

  long requests() {
    return requests.sum();
  }


  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    requests.increment();
    return delegate.listBuckets();
  }

  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    requests.increment();
    return delegate.bucketExists(bucket);
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    requests.increment();
    return delegate.createBucket(bucket);
  }

  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    requests.increment();
    return delegate.deleteBucket(bucket);
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    requests.increment();
    return delegate.head(bucket, key);
  }

  @Override
  public CompletableFuture<java.util.Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    requests.increment();
    return delegate.revalidate(bucket, key, etag);
  }

  @Override
  public CompletableFuture<PartRange> partRange(
      String bucket, String key, String etag, int partNumber) {
    requests.increment();
    return delegate.partRange(bucket, key, etag, partNumber);
  }

  @Override
  public CompletableFuture<byte[]> readRange(
      String bucket, String key, String expectedEtag, long offset, int length) {
    requests.increment();
    return delegate.readRange(bucket, key, expectedEtag, offset, length);
  }

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    requests.increment();
    return delegate.put(bucket, key, body, options);
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    requests.increment();
    return delegate.delete(bucket, key, condition);
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    requests.increment();
    return delegate.copy(request);
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    requests.increment();
    return delegate.list(request);
  }

  @Override
  public CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options) {
    requests.increment();
    return delegate.createMultipartUpload(bucket, key, options);
  }

  @Override
  public CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    requests.increment();
    return delegate.uploadPart(upload, partNumber, body);
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(
      MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition) {
    requests.increment();
    return delegate.completeMultipartUpload(upload, parts, condition);
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    requests.increment();
    return delegate.abortMultipartUpload(upload);
  }

  @Override
  public CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    requests.increment();
    return delegate.listParts(upload, partNumberMarker, maxParts);
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    requests.increment();
    return delegate.listUploads(request);
  }

  @Override
  public CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    requests.increment();
    return delegate.headVersion(bucket, key, versionId);
  }

  @Override
  public CompletableFuture<byte[]> readVersionRange(
      String bucket, String key, String versionId, long offset, int length) {
    requests.increment();
    return delegate.readVersionRange(bucket, key, versionId, offset, length);
  }

  @Override
  public CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    requests.increment();
    return delegate.deleteVersion(bucket, key, versionId);
  }

  /** The node does not own its origin: closing is the caller's business. */
  @Override
  public void close() {}
}
