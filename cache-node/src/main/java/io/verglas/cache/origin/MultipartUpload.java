package io.verglas.cache.origin;

import java.util.Objects;

/** Names one multipart upload in progress. */
public record MultipartUpload(String bucket, String key, String uploadId) {
  public MultipartUpload {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(uploadId, "uploadId");
  }
}
