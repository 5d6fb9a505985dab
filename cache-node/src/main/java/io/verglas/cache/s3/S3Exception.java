package io.verglas.cache.s3;

import java.util.LinkedHashMap;
import java.util.Map;

/** A request failed with an S3 error: rendered as the S3 XML error document. */
final class S3Exception extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final S3ErrorCode code;
  private final Map<String, String> details = new LinkedHashMap<>();
  private final Map<String, String> headers = new LinkedHashMap<>();

  S3Exception(S3ErrorCode code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  S3Exception(S3ErrorCode code, String message, Throwable cause) {
    super(message, cause, false, false);
    this.code = code;
  }

  S3ErrorCode code() {
    return code;
  }

  /** An extra element of the error document, e.g. StringToSign. */
  S3Exception detail(String element, String value) {
    if (value != null) {
      details.put(element, value);
    }
    return this;
  }

  S3Exception header(String name, String value) {
    headers.put(name, value);
    return this;
  }

  Map<String, String> details() {
    return details;
  }

  Map<String, String> headers() {
    return headers;
  }

  static S3Exception notImplemented(String what) {
    return new S3Exception(S3ErrorCode.NOT_IMPLEMENTED,
        "A header or query you provided implies functionality that is not implemented: " + what);
  }
}
