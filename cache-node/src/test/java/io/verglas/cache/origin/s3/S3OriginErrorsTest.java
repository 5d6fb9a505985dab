package io.verglas.cache.origin.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.origin.OriginException.Reason;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class S3OriginErrorsTest {
  @ParameterizedTest(name = "{0} {1} object={2} -> {3}")
  @CsvSource(nullValues = "-", value = {
      "NoSuchKey, 404, true, NO_SUCH_KEY",
      "NoSuchBucket, 404, true, NO_SUCH_BUCKET",
      "NoSuchUpload, 404, true, NO_SUCH_UPLOAD",
      "-, 404, true, NO_SUCH_KEY",
      "-, 404, false, NO_SUCH_BUCKET",
      "PreconditionFailed, 412, true, PRECONDITION_FAILED",
      "-, 412, true, PRECONDITION_FAILED",
      "ConditionalRequestConflict, 409, true, CONFLICT",
      "BucketAlreadyOwnedByYou, 409, false, BUCKET_ALREADY_OWNED",
      "SlowDown, 503, true, SLOW_DOWN",
      "-, 503, true, SLOW_DOWN",
      "InternalError, 500, true, UNAVAILABLE",
      "-, 502, true, UNAVAILABLE",
      "EntityTooSmall, 400, true, ENTITY_TOO_SMALL",
      "AccessDenied, 403, true, -",
  })
  void errorCodesAndStatusesMapToReasons(String code, int status, boolean object, Reason expected) {
    assertThat(S3Origin.reasonFor(code, status, object)).isEqualTo(expected);
  }
}
