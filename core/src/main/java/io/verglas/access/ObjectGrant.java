package io.verglas.access;

import java.util.Objects;

/**
 * Objects a scoped token reaches on the stack's S3 endpoint: the keys of {@code bucket} starting
 * with {@code prefix}, to read ({@code write} false) or to read and write. A prefix is matched
 * as plain text, so a grant of a queue's objects ends it with '/' (queue {@code q} must not
 * reach queue {@code q2}).
 */
public record ObjectGrant(String bucket, String prefix, boolean write) {
  public ObjectGrant {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    if (bucket.isBlank() || bucket.chars().anyMatch(Character::isISOControl)
        || prefix.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("Invalid object grant: bucket '" + bucket
          + "' and prefix '" + prefix + "' (a bucket name, no control characters)");
    }
  }

  public static ObjectGrant read(String bucket, String prefix) {
    return new ObjectGrant(bucket, prefix, false);
  }

  public static ObjectGrant readWrite(String bucket, String prefix) {
    return new ObjectGrant(bucket, prefix, true);
  }

  /** Whether this grant reaches {@code key} of {@code bucket} (for writing, if {@code toWrite}). */
  public boolean covers(String bucket, String key, boolean toWrite) {
    return this.bucket.equals(bucket) && key.startsWith(prefix) && (write || !toWrite);
  }

  @Override
  public String toString() {
    return (write ? "read-write " : "read ") + bucket + "/" + prefix + "*";
  }
}
