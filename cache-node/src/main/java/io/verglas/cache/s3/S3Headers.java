package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Object metadata in and out of HTTP headers, and the conditional-request rules of S3.
 *
 * <p>Stored with an object: Content-Type, {@code x-amz-meta-*}, Cache-Control,
 * Content-Disposition, Content-Encoding (without the {@code aws-chunked} transfer token),
 * Content-Language, Expires. Headers that ask for features this endpoint does not have
 * (server-side encryption, tagging, object lock, other storage classes) are refused with
 * NotImplemented rather than accepted and dropped; ACLs other than the owner's private one with
 * S3's AccessControlListNotSupported (see {@link Acls}).
 */
final class S3Headers {
  private static final String META_PREFIX = "x-amz-meta-";
  private static final String[] CONTENT_HEADERS = {
    "cache-control", "content-disposition", "content-encoding", "content-language", "expires"
  };
  private static final String[] RESPONSE_OVERRIDES = {
    "content-type", "content-language", "expires", "cache-control", "content-disposition",
    "content-encoding"
  };
  // Names looked up or set on every read: AsciiString constants hash once and compare fast.
  static final AsciiString X_AMZ_CONTENT_SHA256 = AsciiString.cached("x-amz-content-sha256");
  static final AsciiString X_AMZ_REQUEST_ID = AsciiString.cached("x-amz-request-id");
  static final AsciiString X_AMZ_ID_2 = AsciiString.cached("x-amz-id-2");
  private static final AsciiString SSE_C_ALGORITHM =
      AsciiString.cached("x-amz-server-side-encryption-customer-algorithm");
  private static final String[] RESPONSE_OVERRIDE_PARAMS =
      java.util.Arrays.stream(RESPONSE_OVERRIDES).map(name -> "response-" + name).toArray(String[]::new);

  private S3Headers() {}

  /** The metadata of a new object; its condition is set by the {@link WriteGate}. */
  static WriteOptions writeOptions(S3Request r) {
    Map<String, String> user = new TreeMap<>();
    for (Map.Entry<String, String> h : r.headers) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith(META_PREFIX)) {
        user.put(name.substring(META_PREFIX.length()), h.getValue());
      }
    }
    Map<String, String> content = new TreeMap<>();
    for (String name : CONTENT_HEADERS) {
      String value = r.header(name);
      if (value != null && name.equals("content-encoding")) {
        value = stripAwsChunked(value);
      }
      if (value != null && !value.isEmpty()) {
        content.put(name, value);
      }
    }
    return new WriteOptions(r.header(HttpHeaderNames.CONTENT_TYPE), user, content,
        WriteCondition.NONE);
  }

  private static String stripAwsChunked(String encoding) {
    StringBuilder kept = new StringBuilder();
    for (String token : encoding.split(",")) {
      String t = token.trim();
      if (!t.isEmpty() && !t.equalsIgnoreCase("aws-chunked")) {
        if (kept.length() > 0) {
          kept.append(',');
        }
        kept.append(t);
      }
    }
    return kept.toString();
  }

  /** Refuses write headers that request features this endpoint does not implement. */
  static void rejectUnsupportedWrite(S3Request r) {
    for (Map.Entry<String, String> h : r.headers) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("x-amz-server-side-encryption") || name.equals("x-amz-tagging")
          || name.startsWith("x-amz-object-lock-")
          || name.equals("x-amz-website-redirect-location") || name.equals("x-amz-write-offset-bytes")) {
        throw S3Exception.notImplemented("header " + name);
      }
    }
    Acls.checkWriteHeaders(r);
    String storageClass = r.header("x-amz-storage-class");
    if (storageClass != null && !storageClass.trim().equals("STANDARD")) {
      throw S3Exception.notImplemented("x-amz-storage-class " + storageClass + " (only STANDARD)");
    }
  }

  static void rejectUnsupportedRead(S3Request r) {
    if (r.header(SSE_C_ALGORITHM) != null) {
      throw S3Exception.notImplemented("SSE-C reads");
    }
  }

  static void addObjectHeaders(S3Response response, ObjectMeta meta, S3Request r) {
    response.header(HttpHeaderNames.ETAG, meta.etag())
        .header(HttpHeaderNames.LAST_MODIFIED, S3Dates.http(meta.lastModified()))
        .header(HttpHeaderNames.CONTENT_TYPE, meta.contentType())
        .header(HttpHeaderNames.ACCEPT_RANGES, "bytes");
    meta.userMetadata().forEach((k, v) -> response.header(META_PREFIX + k, v));
    meta.contentHeaders().forEach(response::header);
    if (r.params.isEmpty()) {
      return; // the usual read: no response-* overrides to look for
    }
    for (int i = 0; i < RESPONSE_OVERRIDES.length; i++) {
      String value = r.param(RESPONSE_OVERRIDE_PARAMS[i]);
      if (value != null) {
        response.header(RESPONSE_OVERRIDES[i], value);
      }
    }
  }

  /**
   * GET/HEAD preconditions with S3's precedence: If-Match decides over If-Unmodified-Since,
   * If-None-Match over If-Modified-Since. Returns a 304 response, throws 412, or returns null.
   */
  static S3Response evaluateRead(S3Request r, ObjectMeta meta) {
    String ifMatch = r.header(HttpHeaderNames.IF_MATCH);
    String ifNoneMatch = r.header(HttpHeaderNames.IF_NONE_MATCH);
    Instant modified = meta.lastModified().truncatedTo(ChronoUnit.SECONDS);
    if (ifMatch != null) {
      if (!anyEtagMatches(ifMatch, meta.etag())) {
        throw preconditionFailed("If-Match");
      }
    } else {
      Instant ius = S3Dates.parseHttp(r.header(HttpHeaderNames.IF_UNMODIFIED_SINCE));
      if (ius != null && modified.isAfter(ius)) {
        throw preconditionFailed("If-Unmodified-Since");
      }
    }
    boolean notModified;
    if (ifNoneMatch != null) {
      notModified = anyEtagMatches(ifNoneMatch, meta.etag());
    } else {
      Instant ims = S3Dates.parseHttp(r.header(HttpHeaderNames.IF_MODIFIED_SINCE));
      notModified = ims != null && !modified.isAfter(ims);
    }
    if (!notModified) {
      return null;
    }
    return S3Response.of(HttpResponseStatus.NOT_MODIFIED)
        .header(HttpHeaderNames.ETAG, meta.etag())
        .header(HttpHeaderNames.LAST_MODIFIED, S3Dates.http(meta.lastModified()));
  }

  /** x-amz-copy-source-if-* conditions; every failure is 412. */
  static void evaluateCopySource(S3Request r, ObjectMeta source) {
    String ifMatch = r.header("x-amz-copy-source-if-match");
    String ifNoneMatch = r.header("x-amz-copy-source-if-none-match");
    Instant modified = source.lastModified().truncatedTo(ChronoUnit.SECONDS);
    Instant ius = S3Dates.parseHttp(r.header("x-amz-copy-source-if-unmodified-since"));
    Instant ims = S3Dates.parseHttp(r.header("x-amz-copy-source-if-modified-since"));
    if (ifMatch != null ? !anyEtagMatches(ifMatch, source.etag()) : ius != null && modified.isAfter(ius)) {
      throw preconditionFailed("x-amz-copy-source-if-match / if-unmodified-since");
    }
    if (ifNoneMatch != null ? anyEtagMatches(ifNoneMatch, source.etag()) : ims != null && !modified.isAfter(ims)) {
      throw preconditionFailed("x-amz-copy-source-if-none-match / if-modified-since");
    }
  }

  static boolean anyEtagMatches(String headerValue, String etag) {
    for (String candidate : headerValue.split(",")) {
      String c = candidate.trim();
      if (c.equals("*") || ETags.matches(c, etag)) {
        return true;
      }
    }
    return false;
  }

  private static S3Exception preconditionFailed(String condition) {
    return new S3Exception(S3ErrorCode.PRECONDITION_FAILED,
        "At least one of the pre-conditions you specified did not hold")
        .detail("Condition", condition);
  }
}
