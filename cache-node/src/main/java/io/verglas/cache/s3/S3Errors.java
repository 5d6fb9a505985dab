package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.verglas.cache.origin.OriginException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns failures into S3 error responses. */
final class S3Errors {
  private static final Logger LOG = LoggerFactory.getLogger(S3Errors.class);

  private S3Errors() {}

  static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** The S3 error for any failure; unexpected ones become InternalError and are logged. */
  static S3Exception toS3(Throwable error, String requestId) {
    Throwable e = unwrap(error);
    if (e instanceof S3Exception s3) {
      return s3;
    }
    if (e instanceof OriginException origin) {
      return new S3Exception(codeFor(origin.reason()), origin.getMessage(), origin);
    }
    LOG.warn("Request {} failed with an internal error", requestId, e);
    return new S3Exception(S3ErrorCode.INTERNAL_ERROR,
        "We encountered an internal error. Please try again. (" + e + ")", e);
  }

  static S3ErrorCode codeFor(OriginException.Reason reason) {
    return switch (reason) {
      case NO_SUCH_BUCKET -> S3ErrorCode.NO_SUCH_BUCKET;
      case NO_SUCH_KEY -> S3ErrorCode.NO_SUCH_KEY;
      case NO_SUCH_UPLOAD -> S3ErrorCode.NO_SUCH_UPLOAD;
      case PRECONDITION_FAILED -> S3ErrorCode.PRECONDITION_FAILED;
      case BUCKET_ALREADY_OWNED -> S3ErrorCode.BUCKET_ALREADY_OWNED_BY_YOU;
      case BUCKET_NOT_EMPTY -> S3ErrorCode.BUCKET_NOT_EMPTY;
      case INVALID_BUCKET_NAME -> S3ErrorCode.INVALID_BUCKET_NAME;
      case INVALID_KEY, INVALID_ARGUMENT -> S3ErrorCode.INVALID_ARGUMENT;
      case KEY_TOO_LONG -> S3ErrorCode.KEY_TOO_LONG;
      case INVALID_PART -> S3ErrorCode.INVALID_PART;
      case INVALID_PART_ORDER -> S3ErrorCode.INVALID_PART_ORDER;
      case ENTITY_TOO_SMALL -> S3ErrorCode.ENTITY_TOO_SMALL;
      case CONFLICT -> S3ErrorCode.CONDITIONAL_REQUEST_CONFLICT;
      case NOT_IMPLEMENTED -> S3ErrorCode.NOT_IMPLEMENTED;
      case SLOW_DOWN -> S3ErrorCode.SLOW_DOWN;
      case UNAVAILABLE -> S3ErrorCode.SERVICE_UNAVAILABLE;
    };
  }

  /** The error document; HEAD responses carry the status and headers only. */
  static S3Response toResponse(S3Exception e, String resource, String requestId, boolean head) {
    S3Response response = S3Response.of(e.code().status());
    e.headers().forEach(response::header);
    if (head) {
      return response;
    }
    S3Xml xml = S3Xml.plainDocument("Error")
        .element("Code", e.code().code())
        .element("Message", e.getMessage());
    for (Map.Entry<String, String> detail : e.details().entrySet()) {
      xml.element(detail.getKey(), detail.getValue());
    }
    xml.element("Resource", resource).element("RequestId", requestId);
    return response.body(xml.toBytes(), S3Response.XML_TYPE);
  }

  /**
   * The answer under a reserved segment ({@code /catalog}, {@code /v1}) the node does not serve:
   * an Iceberg REST error, which query clients read as well.
   */
  static S3Response serviceNotConfigured(String segment) {
    String json = "{\"error\":{\"message\":\"Cannot serve /" + segment + ": this cache node has no "
        + segment + " endpoint configured\",\"type\":\"NotImplementedException\",\"code\":501}}";
    return S3Response.of(HttpResponseStatus.NOT_IMPLEMENTED)
        .body(json.getBytes(StandardCharsets.UTF_8), "application/json");
  }
}
