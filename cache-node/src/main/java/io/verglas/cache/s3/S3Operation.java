package io.verglas.cache.s3;

/** The S3 operations this endpoint implements, with the kind of request body each takes. */
enum S3Operation {
  LIST_BUCKETS(Body.NONE),
  HEAD_BUCKET(Body.NONE),
  CREATE_BUCKET(Body.XML),
  DELETE_BUCKET(Body.NONE),
  GET_BUCKET_LOCATION(Body.NONE),
  GET_BUCKET_VERSIONING(Body.NONE),
  GET_BUCKET_ACL(Body.NONE),
  PUT_BUCKET_ACL(Body.XML),
  LIST_OBJECTS_V1(Body.NONE),
  LIST_OBJECTS_V2(Body.NONE),
  LIST_OBJECT_VERSIONS(Body.NONE),
  DELETE_OBJECTS(Body.XML),
  GET_OBJECT(Body.NONE),
  HEAD_OBJECT(Body.NONE),
  GET_OBJECT_ATTRIBUTES(Body.NONE),
  GET_OBJECT_ACL(Body.NONE),
  PUT_OBJECT_ACL(Body.XML),
  PUT_OBJECT(Body.OBJECT),
  COPY_OBJECT(Body.NONE),
  DELETE_OBJECT(Body.NONE),
  CREATE_MULTIPART_UPLOAD(Body.NONE),
  UPLOAD_PART(Body.OBJECT),
  UPLOAD_PART_COPY(Body.NONE),
  COMPLETE_MULTIPART_UPLOAD(Body.XML),
  ABORT_MULTIPART_UPLOAD(Body.NONE),
  LIST_PARTS(Body.NONE),
  LIST_MULTIPART_UPLOADS(Body.NONE);

  /** NONE: any body is read and dropped. OBJECT: streamed and spooled. XML: small, in memory. */
  enum Body { NONE, OBJECT, XML }

  final Body body;

  S3Operation(Body body) {
    this.body = body;
  }
}
