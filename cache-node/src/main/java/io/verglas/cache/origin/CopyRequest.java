package io.verglas.cache.origin;

import java.util.Objects;

/**
 * A server-side copy.
 *
 * @param sourceVersionId null for the current version
 * @param expectedSourceEtag if set, the copy fails with PRECONDITION_FAILED unless the source
 *     still has this ETag when it is read
 * @param replacement metadata for the new object, or null to copy the source's metadata; its
 *     condition applies to the target either way (see {@code targetCondition})
 */
public record CopyRequest(
    String sourceBucket,
    String sourceKey,
    String sourceVersionId,
    String expectedSourceEtag,
    String bucket,
    String key,
    WriteOptions replacement,
    WriteCondition targetCondition) {

  public CopyRequest {
    Objects.requireNonNull(sourceBucket, "sourceBucket");
    Objects.requireNonNull(sourceKey, "sourceKey");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(key, "key");
    targetCondition = targetCondition == null ? WriteCondition.NONE : targetCondition;
  }
}
