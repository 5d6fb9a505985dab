package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.WriteCondition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * The preconditions of one write request as S3 defines them (since 2024): {@code If-None-Match}
 * and {@code If-Match} on PutObject, CompleteMultipartUpload and CopyObject; on DeleteObject also
 * {@code x-amz-if-match-last-modified-time} and {@code x-amz-if-match-size}; and the same three
 * per object in DeleteObjects ({@code ETag}, {@code LastModifiedTime}, {@code Size}).
 *
 * <p>Design: an origin only has to understand the two basic conditions of {@link WriteCondition}
 * (must not exist, must have ETag e), which S3-compatible stores evaluate natively. Every other
 * form ({@code If-Match: *}, {@code If-None-Match} with ETags, size and time, combinations) is
 * resolved by the endpoint against the current version and reduced to a basic condition on that
 * version: a write that must see ETag e, or nothing. The origin then refuses the write if the
 * object changed in between, so the reduction is as atomic as the basic conditions are.
 *
 * <p>Outcomes follow S3: a condition on an existing version that does not hold is 412
 * PreconditionFailed; {@code If-Match} (or size/time) on a missing key is 404 NoSuchKey.
 */
final class WritePreconditions {
  static final WritePreconditions NONE = new WritePreconditions(null, null, null, null, false);

  private final String ifMatch;
  private final String ifNoneMatch;
  private final Instant lastModified;
  private final Long size;
  private final boolean delete;

  private WritePreconditions(String ifMatch, String ifNoneMatch, Instant lastModified, Long size,
      boolean delete) {
    this.ifMatch = ifMatch;
    this.ifNoneMatch = ifNoneMatch;
    this.lastModified = lastModified;
    this.size = size;
    this.delete = delete;
  }

  /** The If-Match / If-None-Match headers of a PUT, Complete or Copy. */
  static WritePreconditions ofWrite(S3Request r) {
    return new WritePreconditions(trimmed(r.header(HttpHeaderNames.IF_MATCH)),
        trimmed(r.header(HttpHeaderNames.IF_NONE_MATCH)), null, null, false);
  }

  /** The conditions of a DeleteObject: If-Match plus the last-modified-time and size headers. */
  static WritePreconditions ofDelete(S3Request r) {
    String ifNoneMatch = trimmed(r.header(HttpHeaderNames.IF_NONE_MATCH));
    if (ifNoneMatch != null) {
      throw S3Exception.notImplemented("If-None-Match on DeleteObject (S3 takes If-Match,"
          + " x-amz-if-match-last-modified-time and x-amz-if-match-size)");
    }
    return forDelete(r.header(HttpHeaderNames.IF_MATCH),
        r.header("x-amz-if-match-last-modified-time"), r.header("x-amz-if-match-size"));
  }

  /**
   * Delete conditions from their textual forms (headers, or the ETag, LastModifiedTime and Size
   * elements of a DeleteObjects entry); a time is an HTTP date or an ISO-8601 timestamp.
   */
  static WritePreconditions forDelete(String etag, String lastModifiedTime, String size) {
    Instant time = null;
    if (trimmed(lastModifiedTime) != null) {
      time = parseTime(lastModifiedTime.trim());
    }
    Long bytes = null;
    if (trimmed(size) != null) {
      try {
        bytes = Long.parseLong(size.trim());
      } catch (NumberFormatException e) {
        bytes = -1L;
      }
      if (bytes < 0) {
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
            "Invalid x-amz-if-match-size: " + size + " (a number of bytes)");
      }
    }
    return new WritePreconditions(trimmed(etag), null, time, bytes, true);
  }

  boolean isNone() {
    return ifMatch == null && ifNoneMatch == null && lastModified == null && size == null;
  }

  /**
   * The basic condition this request is, or null if it must be resolved against the current
   * version first ({@link #resolve}). Conditional deletes are always resolved: stores differ on
   * an If-Match delete of a missing key (s3proxy deletes nothing and succeeds), S3 answers 404.
   */
  WriteCondition basic() {
    if (isNone()) {
      return WriteCondition.NONE;
    }
    if (delete || lastModified != null || size != null) {
      return null;
    }
    if (ifMatch == null && ifNoneMatch.equals("*")) {
      return WriteCondition.ifNoneMatchAny();
    }
    if (ifNoneMatch == null && !ifMatch.equals("*") && ifMatch.indexOf(',') < 0) {
      return WriteCondition.ifMatch(ifMatch);
    }
    return null;
  }

  /**
   * Checks every condition against the current version ({@code null}: the key does not exist)
   * and returns the basic condition that pins that version; throws 404 or 412 otherwise.
   */
  WriteCondition resolve(ObjectMeta current, String key) {
    if (current == null) {
      if (ifMatch != null || lastModified != null || size != null) {
        throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist.")
            .detail("Key", key);
      }
      return WriteCondition.ifNoneMatchAny();
    }
    if (ifMatch != null && !S3Headers.anyEtagMatches(ifMatch, current.etag())) {
      throw failed("If-Match");
    }
    if (ifNoneMatch != null && S3Headers.anyEtagMatches(ifNoneMatch, current.etag())) {
      throw failed("If-None-Match");
    }
    if (lastModified != null && !current.lastModified().truncatedTo(ChronoUnit.SECONDS)
        .equals(lastModified.truncatedTo(ChronoUnit.SECONDS))) {
      throw failed("x-amz-if-match-last-modified-time");
    }
    if (size != null && current.size() != size) {
      throw failed("x-amz-if-match-size");
    }
    return WriteCondition.ifMatch(current.etag());
  }

  private static S3Exception failed(String condition) {
    return new S3Exception(S3ErrorCode.PRECONDITION_FAILED,
        "At least one of the pre-conditions you specified did not hold")
        .detail("Condition", condition);
  }

  private static Instant parseTime(String value) {
    Instant http = S3Dates.parseHttp(value);
    if (http != null) {
      return http;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "Invalid x-amz-if-match-last-modified-time: " + value
              + " (an HTTP date or an ISO-8601 timestamp)");
    }
  }

  private static String trimmed(String value) {
    if (value == null) {
      return null;
    }
    String t = value.trim();
    return t.isEmpty() ? null : t;
  }
}
