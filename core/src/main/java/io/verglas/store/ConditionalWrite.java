package io.verglas.store;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A PUT that wins only over the version its writer read: {@code If-Match} on that version's
 * ETag, or {@code If-None-Match: *} when the writer found no object. The building block of every
 * compare-and-swap on an object (a stream's high-water mark, a queue's consumer group).
 */
public final class ConditionalWrite {
  private ConditionalWrite() {}

  /**
   * Writes the body if the object is still at {@code etag} (null: still absent). False when
   * another writer came first (412) or a conditional write of the same key was in flight (409);
   * other failures are thrown as the SDK reports them.
   */
  public static boolean put(S3Client s3, String bucket, String key, String etag,
      RequestBody body) {
    try {
      s3.putObject(b -> {
        b.bucket(bucket).key(key);
        if (etag == null) {
          b.ifNoneMatch("*");
        } else {
          b.ifMatch(etag);
        }
      }, body);
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 409) {
        return false;
      }
      throw e;
    }
  }
}
