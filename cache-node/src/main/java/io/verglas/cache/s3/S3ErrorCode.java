package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpResponseStatus;

/** The S3 error codes this endpoint answers with, each with its HTTP status. */
enum S3ErrorCode {
  ACCESS_CONTROL_LIST_NOT_SUPPORTED("AccessControlListNotSupported", 400),
  ACCESS_DENIED("AccessDenied", 403),
  AUTHORIZATION_HEADER_MALFORMED("AuthorizationHeaderMalformed", 400),
  AUTHORIZATION_QUERY_PARAMETERS_ERROR("AuthorizationQueryParametersError", 400),
  BAD_DIGEST("BadDigest", 400),
  BAD_REQUEST("BadRequest", 400),
  BUCKET_ALREADY_OWNED_BY_YOU("BucketAlreadyOwnedByYou", 409),
  BUCKET_NOT_EMPTY("BucketNotEmpty", 409),
  CONDITIONAL_REQUEST_CONFLICT("ConditionalRequestConflict", 409),
  ENTITY_TOO_LARGE("EntityTooLarge", 400),
  ENTITY_TOO_SMALL("EntityTooSmall", 400),
  /** A session token past its expiry (S3 says 400). */
  EXPIRED_TOKEN("ExpiredToken", 400),
  INCOMPLETE_BODY("IncompleteBody", 400),
  INTERNAL_ERROR("InternalError", 500),
  INVALID_ACCESS_KEY_ID("InvalidAccessKeyId", 403),
  INVALID_ARGUMENT("InvalidArgument", 400),
  INVALID_BUCKET_ACL_WITH_OBJECT_OWNERSHIP("InvalidBucketAclWithObjectOwnership", 400),
  INVALID_BUCKET_NAME("InvalidBucketName", 400),
  INVALID_DIGEST("InvalidDigest", 400),
  INVALID_PART("InvalidPart", 400),
  INVALID_PART_NUMBER("InvalidPartNumber", 416),
  INVALID_PART_ORDER("InvalidPartOrder", 400),
  INVALID_RANGE("InvalidRange", 416),
  INVALID_REQUEST("InvalidRequest", 400),
  /** A session token that is malformed, forged, or not the access key's (S3 says 400). */
  INVALID_TOKEN("InvalidToken", 400),
  INVALID_URI("InvalidURI", 400),
  KEY_TOO_LONG("KeyTooLongError", 400),
  MALFORMED_XML("MalformedXML", 400),
  MAX_MESSAGE_LENGTH_EXCEEDED("MaxMessageLengthExceeded", 400),
  METHOD_NOT_ALLOWED("MethodNotAllowed", 405),
  MISSING_CONTENT_LENGTH("MissingContentLength", 411),
  NO_SUCH_BUCKET("NoSuchBucket", 404),
  NO_SUCH_KEY("NoSuchKey", 404),
  NO_SUCH_UPLOAD("NoSuchUpload", 404),
  NOT_IMPLEMENTED("NotImplemented", 501),
  PRECONDITION_FAILED("PreconditionFailed", 412),
  REQUEST_HEADER_SECTION_TOO_LARGE("RequestHeaderSectionTooLarge", 400),
  REQUEST_TIME_TOO_SKEWED("RequestTimeTooSkewed", 403),
  SERVICE_UNAVAILABLE("ServiceUnavailable", 503),
  SLOW_DOWN("SlowDown", 503),
  SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", 403),
  X_AMZ_CONTENT_SHA256_MISMATCH("XAmzContentSHA256Mismatch", 400);

  private final String code;
  private final HttpResponseStatus status;

  S3ErrorCode(String code, int status) {
    this.code = code;
    this.status = HttpResponseStatus.valueOf(status);
  }

  String code() {
    return code;
  }

  HttpResponseStatus status() {
    return status;
  }
}
