package io.verglas.cache.origin;

/**
 * An origin operation failed for a reason the S3 client should see: a missing bucket or key, a
 * failed precondition, a bad argument. Any other exception from an origin is an internal error.
 */
public class OriginException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the operation failed; the S3 endpoint maps each reason to one S3 error code. */
  public enum Reason {
    NO_SUCH_BUCKET,
    NO_SUCH_KEY,
    NO_SUCH_UPLOAD,
    PRECONDITION_FAILED,
    BUCKET_ALREADY_OWNED,
    BUCKET_NOT_EMPTY,
    INVALID_BUCKET_NAME,
    INVALID_KEY,
    KEY_TOO_LONG,
    INVALID_ARGUMENT,
    INVALID_PART,
    INVALID_PART_ORDER,
    ENTITY_TOO_SMALL,
    CONFLICT,
    NOT_IMPLEMENTED,
    /** The origin asked to slow down (S3 503 SlowDown); the request was not applied. */
    SLOW_DOWN,
    /** The origin cannot be reached or failed (5xx, I/O error, circuit open). */
    UNAVAILABLE;

    /**
     * The reason an HTTP status gives when the store's own error code said nothing more (every
     * HTTP origin falls back on it), or null for a status that names none.
     *
     * @param objectRequest whether the request named an object (a 404 is then NoSuchKey)
     */
    public static Reason ofStatus(int status, boolean objectRequest) {
      switch (status) {
        case 404: return objectRequest ? NO_SUCH_KEY : NO_SUCH_BUCKET;
        case 412: return PRECONDITION_FAILED;
        case 409: return CONFLICT;
        case 503: return SLOW_DOWN;
        case 501: return NOT_IMPLEMENTED;
        default: return status >= 500 ? UNAVAILABLE : null;
      }
    }
  }

  private final Reason reason;

  public OriginException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public OriginException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
