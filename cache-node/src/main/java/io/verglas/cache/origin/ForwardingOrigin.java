package io.verglas.cache.origin;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An {@link Origin} that forwards every call to another: the base of the decorators (observing,
 * protecting, write-back), which override only the calls they change. The default methods of
 * {@link Origin} are forwarded too, so a decorator over a versioned or multipart-listing origin
 * keeps those abilities. {@link #ensureBucket} is not: it goes through this origin's
 * {@link #bucketExists} and {@link #createBucket}.
 *
 * <p>A decorator does not own its delegate: {@link #close} does nothing.
 */
public abstract class ForwardingOrigin implements Origin {
  private final Origin delegate;

  protected ForwardingOrigin(Origin delegate) {
    this.delegate = delegate;
  }

  /** The origin the calls go to. */
  protected final Origin delegate() {
    return delegate;
  }

  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    return delegate.listBuckets();
  }

  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    return delegate.bucketExists(bucket);
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    return delegate.createBucket(bucket);
  }

  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    return delegate.deleteBucket(bucket);
  }

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    return delegate.head(bucket, key);
  }

  @Override
  public CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    return delegate.revalidate(bucket, key, etag);
  }

  @Override
  public CompletableFuture<byte[]> readRange(
      String bucket, String key, String expectedEtag, long offset, int length) {
    return delegate.readRange(bucket, key, expectedEtag, offset, length);
  }

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    return delegate.put(bucket, key, body, options);
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    return delegate.delete(bucket, key, condition);
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    return delegate.copy(request);
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    return delegate.list(request);
  }

  @Override
  public CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options) {
    return delegate.createMultipartUpload(bucket, key, options);
  }

  @Override
  public CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    return delegate.uploadPart(upload, partNumber, body);
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(
      MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition) {
    return delegate.completeMultipartUpload(upload, parts, condition);
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    return delegate.abortMultipartUpload(upload);
  }

  @Override
  public CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    return delegate.listParts(upload, partNumberMarker, maxParts);
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    return delegate.listUploads(request);
  }

  @Override
  public CompletableFuture<PartRange> partRange(String bucket, String key, String etag, int partNumber) {
    return delegate.partRange(bucket, key, etag, partNumber);
  }

  @Override
  public CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    return delegate.headVersion(bucket, key, versionId);
  }

  @Override
  public CompletableFuture<byte[]> readVersionRange(
      String bucket, String key, String versionId, long offset, int length) {
    return delegate.readVersionRange(bucket, key, versionId, offset, length);
  }

  @Override
  public CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    return delegate.deleteVersion(bucket, key, versionId);
  }

  /** The decorator does not own its delegate. */
  @Override
  public void close() {}
}
