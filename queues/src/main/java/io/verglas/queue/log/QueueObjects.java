package io.verglas.queue.log;

import io.verglas.queue.QueueException;
import io.verglas.store.ConditionalWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The object operations a queue needs, on one bucket: conditional creation
 * ({@code If-None-Match: *}) for segments, compare-and-swap ({@code If-Match} on the ETag) for
 * consumer-group state, listings from a key on, and deletes. A conditional write that loses
 * (412) or meets a concurrent conditional write of the same key (409) returns false; every
 * other failure is a {@link QueueException} naming the operation and key.
 */
public final class QueueObjects {
  /** An object's key, size and last-modified time (epoch millis, the store's clock). */
  public record Listed(String key, long size, long lastModifiedMillis) {}

  /** An object's bytes and the ETag they were read at. */
  public record Versioned(byte[] bytes, String etag) {}

  private final S3Client s3;
  private final String bucket;

  public QueueObjects(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  public String bucket() {
    return bucket;
  }

  public S3Client client() {
    return s3;
  }

  /** Creates the object unless one exists under the key; false when one did. */
  public boolean create(String key, RequestBody body) {
    return conditionalPut(key, null, body);
  }

  /**
   * Replaces the object only if its ETag is still {@code etag} (null: creates it only if
   * absent); false when another writer came first.
   */
  public boolean swap(String key, String etag, byte[] bytes) {
    return conditionalPut(key, etag, RequestBody.fromBytes(bytes));
  }

  private boolean conditionalPut(String key, String etag, RequestBody body) {
    try {
      return ConditionalWrite.put(s3, bucket, key, etag, body);
    } catch (SdkException e) {
      throw failure("put", key, e);
    }
  }

  public Optional<Versioned> get(String key) {
    try {
      ResponseBytes<GetObjectResponse> bytes = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
      return Optional.of(new Versioned(bytes.asByteArrayUnsafe(), bytes.response().eTag()));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw failure("get", key, e);
    }
  }

  /**
   * Objects under the prefix whose keys sort after {@code startAfter} (null: all), in key
   * order, at most {@code limit}.
   */
  public List<Listed> list(String prefix, String startAfter, int limit) {
    try {
      List<Listed> found = new ArrayList<>();
      ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(bucket)
          .prefix(prefix).maxKeys(Math.min(limit, 1000));
      if (startAfter != null) {
        request.startAfter(startAfter);
      }
      for (S3Object object : s3.listObjectsV2Paginator(request.build()).contents()) {
        found.add(new Listed(object.key(), object.size(),
            object.lastModified() == null ? 0 : object.lastModified().toEpochMilli()));
        if (found.size() >= limit) {
          break;
        }
      }
      return found;
    } catch (SdkException e) {
      throw failure("list", prefix, e);
    }
  }

  /**
   * Each name one level below {@code prefix} (the part of a key up to the next '/'), in key
   * order, to {@code action}, fetched a page of 1 000 at a time, so the names are never all held.
   */
  public void forEachChild(String prefix, java.util.function.Consumer<String> action) {
    try {
      ListObjectsV2Request request = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix)
          .delimiter("/").maxKeys(1000).build();
      for (var common : s3.listObjectsV2Paginator(request).commonPrefixes()) {
        String name = common.prefix().substring(prefix.length());
        action.accept(name.endsWith("/") ? name.substring(0, name.length() - 1) : name);
      }
    } catch (SdkException e) {
      throw failure("list", prefix, e);
    }
  }

  public void delete(String key) {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      throw failure("delete", key, e);
    }
  }

  private QueueException failure(String verb, String key, SdkException e) {
    return new QueueException("Cannot " + verb + " s3://" + bucket + "/" + key + ": "
        + e.getMessage(), e);
  }
}
