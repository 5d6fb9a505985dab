package io.verglas.ingest.wal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * WAL segments in one S3 bucket. Conditional creation uses {@code If-None-Match: *}: S3 answers
 * 412 Precondition Failed when the key exists, and 409 ConditionalRequestConflict while a
 * concurrent conditional write to the same key is in flight (retryable).
 */
public final class S3SegmentStore implements SegmentStore {
  static final String CONTENT_TYPE = "application/vnd.verglas.wal-segment";
  private final S3Client s3;
  private final String bucket;

  public S3SegmentStore(S3Client s3, String bucket) {
    this.s3 = Objects.requireNonNull(s3, "s3");
    this.bucket = Objects.requireNonNull(bucket, "bucket");
  }

  @Override
  public boolean putIfAbsent(String key, byte[] bytes) {
    PutObjectRequest request = PutObjectRequest.builder()
        .bucket(bucket).key(key).ifNoneMatch("*").contentType(CONTENT_TYPE)
        .contentLength((long) bytes.length).build();
    try {
      s3.putObject(request, RequestBody.fromBytes(bytes));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 412) {
        return false;
      }
      throw failure("put", key, e);
    } catch (SdkException e) {
      throw failure("put", key, e);
    }
  }

  @Override
  public Optional<byte[]> get(String key) {
    try {
      return Optional.of(s3.getObjectAsBytes(
          GetObjectRequest.builder().bucket(bucket).key(key).build()).asByteArray());
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw failure("get", key, e);
    }
  }

  @Override
  public List<String> list(String prefix) {
    try {
      List<String> keys = new ArrayList<>();
      for (S3Object object : s3.listObjectsV2Paginator(
          ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build()).contents()) {
        keys.add(object.key());
      }
      return keys;
    } catch (SdkException e) {
      throw failure("list", prefix, e);
    }
  }

  private SegmentStoreException failure(String verb, String key, SdkException e) {
    return new SegmentStoreException("Cannot " + verb + " s3://" + bucket + "/" + key + ": "
        + e.getMessage(), e, retryable(e));
  }

  /** Throttling, conflicts, timeouts, server errors and I/O failures may pass on a retry. */
  static boolean retryable(SdkException e) {
    if (e instanceof S3Exception s3) {
      int status = s3.statusCode();
      return status >= 500 || status == 429 || status == 409 || status == 408 || status == 0;
    }
    return e instanceof SdkClientException || e.retryable();
  }
}
