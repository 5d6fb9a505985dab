package io.verglas.cache.origin;

import java.util.Objects;

/**
 * One page of a listing in key order (UTF-8 byte order, as S3).
 *
 * @param prefix only keys starting with it (never null; "" for all)
 * @param delimiter roll keys up to common prefixes ending at the first delimiter after the
 *     prefix; null for none
 * @param startAfter only keys (and common prefixes) strictly after it; null for none
 * @param continuationToken an opaque token from a previous page of this origin; null for none.
 *     When set it takes precedence over startAfter.
 * @param maxKeys at most this many keys plus common prefixes (1..1000)
 */
public record ListRequest(
    String bucket,
    String prefix,
    String delimiter,
    String startAfter,
    String continuationToken,
    int maxKeys) {

  public static final int MAX_KEYS = 1000;

  public ListRequest {
    Objects.requireNonNull(bucket, "bucket");
    prefix = prefix == null ? "" : prefix;
    delimiter = delimiter == null || delimiter.isEmpty() ? null : delimiter;
    startAfter = startAfter == null || startAfter.isEmpty() ? null : startAfter;
    continuationToken =
        continuationToken == null || continuationToken.isEmpty() ? null : continuationToken;
    if (maxKeys < 0) {
      throw new IllegalArgumentException("Invalid max-keys: " + maxKeys);
    }
    maxKeys = Math.min(maxKeys, MAX_KEYS);
  }
}
