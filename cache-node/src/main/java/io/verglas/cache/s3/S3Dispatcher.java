package io.verglas.cache.s3;

import java.util.concurrent.CompletableFuture;

/** Runs an operation; synchronous failures become failed futures so there is one error path. */
final class S3Dispatcher {
  private final ObjectReads reads;
  private final ObjectWrites writes;
  private final Listings listings;
  private final Buckets buckets;
  private final Multiparts multiparts;
  private final ObjectAttributes attributes;
  private final Acls acls;

  S3Dispatcher(ObjectReads reads, ObjectWrites writes, Listings listings, Buckets buckets,
      Multiparts multiparts, ObjectAttributes attributes, Acls acls) {
    this.reads = reads;
    this.writes = writes;
    this.listings = listings;
    this.buckets = buckets;
    this.multiparts = multiparts;
    this.attributes = attributes;
    this.acls = acls;
  }

  CompletableFuture<S3Response> dispatch(S3Operation operation, Exchange ex) {
    try {
      S3Request r = ex.request();
      return switch (operation) {
        case LIST_BUCKETS -> listings.listBuckets(r);
        case HEAD_BUCKET -> buckets.head(r);
        case CREATE_BUCKET -> buckets.create(ex);
        case DELETE_BUCKET -> buckets.delete(r);
        case GET_BUCKET_LOCATION -> buckets.location(r);
        case GET_BUCKET_VERSIONING -> buckets.versioning(r);
        case GET_BUCKET_ACL -> acls.getBucketAcl(r);
        case PUT_BUCKET_ACL -> acls.putBucketAcl(ex);
        case LIST_OBJECTS_V1 -> listings.listV1(r);
        case LIST_OBJECTS_V2 -> listings.listV2(r);
        case LIST_OBJECT_VERSIONS -> listings.listVersions(r);
        case DELETE_OBJECTS -> writes.deleteObjects(ex);
        case GET_OBJECT, HEAD_OBJECT -> reads.read(r, ex.auth());
        case GET_OBJECT_ATTRIBUTES -> attributes.get(r);
        case GET_OBJECT_ACL -> acls.getObjectAcl(r);
        case PUT_OBJECT_ACL -> acls.putObjectAcl(ex);
        case PUT_OBJECT -> writes.put(ex);
        case COPY_OBJECT -> writes.copy(ex);
        case DELETE_OBJECT -> writes.delete(ex);
        case CREATE_MULTIPART_UPLOAD -> multiparts.create(r);
        case UPLOAD_PART -> multiparts.uploadPart(ex);
        case UPLOAD_PART_COPY -> multiparts.uploadPartCopy(r);
        case COMPLETE_MULTIPART_UPLOAD -> multiparts.complete(ex);
        case ABORT_MULTIPART_UPLOAD -> multiparts.abort(r);
        case LIST_PARTS -> multiparts.listParts(r);
        case LIST_MULTIPART_UPLOADS -> multiparts.listUploads(r);
      };
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
