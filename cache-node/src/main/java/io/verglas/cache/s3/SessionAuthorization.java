package io.verglas.cache.s3;

import io.verglas.access.AccessDeniedException;
import io.verglas.access.TableScope;

/**
 * What a request signed with session credentials may do: the object grants of its token's scope
 * (see {@link SigV4Verifier}), checked on the request head before any body is read. Reads
 * (GET, HEAD, attributes) need a read grant on the key; writes (PUT, DELETE, multipart) a write
 * grant, and a copy also a read grant on its source; listings a read grant on the listed prefix.
 * A multi-object delete needs a write grant somewhere in its bucket on the head; its keys, in the
 * body, are checked one by one once it is parsed ({@link #checkDelete}): as S3 does with IAM, a
 * key outside the grants is reported AccessDenied in the result while the others are deleted.
 * Bucket operations and ACLs are refused: a session reaches objects, never a bucket. A request
 * signed with a stack's key passes untouched.
 */
final class SessionAuthorization {
  private SessionAuthorization() {}

  /** @throws S3Exception AccessDenied (403) naming why, when the session does not grant it */
  static void check(Authentication auth, S3Operation operation, S3Request request) {
    TableScope scope = auth.session();
    if (scope != null) {
      refuseUnless(() -> checkGranted(scope, operation, request));
    }
  }

  /**
   * One key of a multi-object delete.
   *
   * @throws S3Exception AccessDenied (403) when the session grants no write on it
   */
  static void checkDelete(Authentication auth, String bucket, String key) {
    TableScope scope = auth.session();
    if (scope != null) {
      refuseUnless(() -> scope.checkObject(bucket, key, true));
    }
  }

  private static void refuseUnless(Runnable grantCheck) {
    try {
      grantCheck.run();
    } catch (AccessDeniedException e) {
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Access Denied: " + e.getMessage());
    }
  }

  private static void checkGranted(TableScope scope, S3Operation operation, S3Request r) {
    switch (operation) {
      case GET_OBJECT, HEAD_OBJECT, GET_OBJECT_ATTRIBUTES ->
          scope.checkObject(r.bucket, r.key, false);
      case PUT_OBJECT, DELETE_OBJECT, CREATE_MULTIPART_UPLOAD, UPLOAD_PART,
          COMPLETE_MULTIPART_UPLOAD, ABORT_MULTIPART_UPLOAD, LIST_PARTS ->
          scope.checkObject(r.bucket, r.key, true);
      case COPY_OBJECT, UPLOAD_PART_COPY -> {
        ObjectWrites.CopySource source =
            ObjectWrites.CopySource.parse(r.header("x-amz-copy-source"));
        scope.checkObject(source.bucket(), source.key(), false);
        scope.checkObject(r.bucket, r.key, true);
      }
      case DELETE_OBJECTS -> scope.checkWritesIn(r.bucket);
      case LIST_OBJECTS_V1, LIST_OBJECTS_V2, LIST_OBJECT_VERSIONS, LIST_MULTIPART_UPLOADS ->
          scope.checkListing(r.bucket, r.param("prefix") == null ? "" : r.param("prefix"));
      default -> throw new AccessDeniedException(operationName(operation) + " is not granted to"
          + " session credentials (token for " + scope.subject() + "): they reach objects only");
    }
  }

  private static String operationName(S3Operation operation) {
    StringBuilder name = new StringBuilder();
    for (String word : operation.name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
    }
    return name.toString();
  }
}
