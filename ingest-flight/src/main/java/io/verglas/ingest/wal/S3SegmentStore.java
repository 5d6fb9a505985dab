package io.verglas.ingest.wal;

import io.verglas.wal.EncodedSegment;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * WAL objects in one S3 bucket. Conditional creation uses {@code If-None-Match: *}: S3 answers
 * 412 Precondition Failed when the key exists, and 409 ConditionalRequestConflict while a
 * concurrent conditional write to the same key is in flight (retryable).
 *
 * <p>Bodies are streamed from the caller's array, not copied ({@code RequestBody.fromBytes}
 * would copy every segment once more).
 */
public final class S3SegmentStore implements SegmentStore {
  static final String CONTENT_TYPE = "application/vnd.verglas.wal-segment";
  private final S3Client s3;
  private final String bucket;

  public S3SegmentStore(S3Client s3, String bucket) {
    this.s3 = Objects.requireNonNull(s3, "s3");
    this.bucket = Objects.requireNonNull(bucket, "bucket");
  }

  /** A request body that reads the array in place (the SDK may read it more than once). */
  public static RequestBody body(byte[] bytes) {
    return RequestBody.fromContentProvider(() -> new ByteArrayInputStream(bytes), bytes.length,
        CONTENT_TYPE);
  }

  @Override
  public boolean putIfAbsent(String key, byte[] bytes) {
    return putIfAbsent(key, bytes.length, body(bytes));
  }

  /** Streams the segment's parts: no array of the whole segment is ever made. */
  @Override
  public boolean putIfAbsent(String key, EncodedSegment segment) {
    return putIfAbsent(key, segment.length(), RequestBody.fromContentProvider(
        segment::newInputStream, segment.length(), CONTENT_TYPE));
  }

  private boolean putIfAbsent(String key, long length, RequestBody body) {
    PutObjectRequest request = PutObjectRequest.builder()
        .bucket(bucket).key(key).ifNoneMatch("*").contentType(CONTENT_TYPE)
        .contentLength(length).build();
    try {
      s3.putObject(request, body);
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
  public void put(String key, byte[] bytes) {
    try {
      s3.putObject(PutObjectRequest.builder().bucket(bucket).key(key).contentType(CONTENT_TYPE)
          .contentLength((long) bytes.length).build(), body(bytes));
    } catch (SdkException e) {
      throw failure("put", key, e);
    }
  }

  @Override
  public Optional<byte[]> get(String key) {
    try {
      return Optional.of(s3.getObjectAsBytes(
          GetObjectRequest.builder().bucket(bucket).key(key).build()).asByteArrayUnsafe());
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw failure("get", key, e);
    }
  }

  @Override
  public boolean exists(String key) {
    try {
      s3.headObject(HeadObjectRequest.builder().bucket(bucket).key(key).build());
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw failure("head", key, e);
    } catch (SdkException e) {
      throw failure("head", key, e);
    }
  }

  @Override
  public List<StoredObject> listObjects(String prefix) {
    try {
      List<StoredObject> objects = new ArrayList<>();
      for (S3Object object : s3.listObjectsV2Paginator(
          ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build()).contents()) {
        objects.add(new StoredObject(object.key(),
            object.lastModified() == null ? 0 : object.lastModified().toEpochMilli()));
      }
      return objects;
    } catch (SdkException e) {
      throw failure("list", prefix, e);
    }
  }

  @Override
  public void delete(String key) {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      throw failure("delete", key, e);
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
