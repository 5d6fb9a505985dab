package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpMethod;
import java.util.Set;

/**
 * Maps method, bucket, key and sub-resource query parameters to an operation. Sub-resources this
 * endpoint does not implement answer NotImplemented instead of falling through to a plain
 * GET/PUT, which would silently do the wrong thing (e.g. PUT ?tagging overwriting the object).
 * Other query parameters (x-id, response-*) do not select operations and are ignored here.
 */
final class S3Router {
  private static final Set<String> BUCKET_SUBRESOURCES = Set.of(
      "accelerate", "acl", "analytics", "cors", "encryption", "intelligent-tiering", "inventory",
      "lifecycle", "logging", "metadataTable", "metrics", "notification", "object-lock",
      "ownershipControls", "policy", "policyStatus", "publicAccessBlock", "replication",
      "requestPayment", "session", "tagging", "uploads", "website", "versioning", "location",
      "versions", "delete", "list-type");
  private static final Set<String> OBJECT_SUBRESOURCES = Set.of(
      "legal-hold", "restore", "retention", "select", "tagging", "torrent",
      "renameObject");

  private S3Router() {}

  static S3Operation route(S3Request r) {
    HttpMethod m = r.method;
    if (r.bucket == null) {
      if (HttpMethod.GET.equals(m)) {
        return S3Operation.LIST_BUCKETS;
      }
      throw methodNotAllowed(r);
    }
    if (r.key == null) {
      return bucketOperation(r, m);
    }
    if (r.hasParam("acl") && (HttpMethod.GET.equals(m) || HttpMethod.PUT.equals(m))) {
      return HttpMethod.GET.equals(m) ? S3Operation.GET_OBJECT_ACL : S3Operation.PUT_OBJECT_ACL;
    }
    if (r.hasParam("attributes") && HttpMethod.GET.equals(m)) {
      return S3Operation.GET_OBJECT_ATTRIBUTES;
    }
    if (r.hasParam("acl") || r.hasParam("attributes")) {
      throw S3Exception.notImplemented(m.name() + " on object sub-resource ?" + (r.hasParam("acl") ? "acl" : "attributes"));
    }
    for (String sub : OBJECT_SUBRESOURCES) {
      if (r.hasParam(sub)) {
        throw S3Exception.notImplemented("object sub-resource ?" + sub);
      }
    }
    if (HttpMethod.GET.equals(m)) {
      if (r.hasParam("uploadId")) {
        return S3Operation.LIST_PARTS;
      }
      return S3Operation.GET_OBJECT;
    }
    if (HttpMethod.HEAD.equals(m)) {
      return S3Operation.HEAD_OBJECT;
    }
    if (HttpMethod.PUT.equals(m)) {
      boolean copy = r.header("x-amz-copy-source") != null;
      if (r.hasParam("uploadId") || r.hasParam("partNumber")) {
        return copy ? S3Operation.UPLOAD_PART_COPY : S3Operation.UPLOAD_PART;
      }
      return copy ? S3Operation.COPY_OBJECT : S3Operation.PUT_OBJECT;
    }
    if (HttpMethod.DELETE.equals(m)) {
      return r.hasParam("uploadId") ? S3Operation.ABORT_MULTIPART_UPLOAD : S3Operation.DELETE_OBJECT;
    }
    if (HttpMethod.POST.equals(m)) {
      if (r.hasParam("uploads")) {
        return S3Operation.CREATE_MULTIPART_UPLOAD;
      }
      if (r.hasParam("uploadId")) {
        return S3Operation.COMPLETE_MULTIPART_UPLOAD;
      }
      throw S3Exception.notImplemented("POST on an object without ?uploads or ?uploadId");
    }
    throw S3Exception.notImplemented(m.name() + " requests");
  }

  private static S3Operation bucketOperation(S3Request r, HttpMethod m) {
    if (HttpMethod.GET.equals(m)) {
      if (r.hasParam("location")) {
        return S3Operation.GET_BUCKET_LOCATION;
      }
      if (r.hasParam("versioning")) {
        return S3Operation.GET_BUCKET_VERSIONING;
      }
      if (r.hasParam("acl")) {
        return S3Operation.GET_BUCKET_ACL;
      }
      if (r.hasParam("versions")) {
        return S3Operation.LIST_OBJECT_VERSIONS;
      }
      if (r.hasParam("uploads")) {
        return S3Operation.LIST_MULTIPART_UPLOADS;
      }
      rejectSubresources(r, Set.of("list-type"));
      String listType = r.param("list-type");
      if (listType == null) {
        return S3Operation.LIST_OBJECTS_V1;
      }
      if (listType.equals("2")) {
        return S3Operation.LIST_OBJECTS_V2;
      }
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid list-type: " + listType);
    }
    if (HttpMethod.HEAD.equals(m)) {
      return S3Operation.HEAD_BUCKET;
    }
    if (HttpMethod.PUT.equals(m)) {
      if (r.hasParam("acl")) {
        return S3Operation.PUT_BUCKET_ACL;
      }
      if (r.hasParam("versioning")) {
        throw S3Exception.notImplemented("PutBucketVersioning: this endpoint keeps only the current"
            + " version of each object (buckets stay unversioned)");
      }
      rejectSubresources(r, Set.of());
      return S3Operation.CREATE_BUCKET;
    }
    if (HttpMethod.DELETE.equals(m)) {
      rejectSubresources(r, Set.of());
      return S3Operation.DELETE_BUCKET;
    }
    if (HttpMethod.POST.equals(m)) {
      if (r.hasParam("delete")) {
        return S3Operation.DELETE_OBJECTS;
      }
      throw S3Exception.notImplemented("POST on a bucket without ?delete");
    }
    throw S3Exception.notImplemented(m.name() + " requests on a bucket");
  }

  private static void rejectSubresources(S3Request r, Set<String> allowed) {
    for (String sub : BUCKET_SUBRESOURCES) {
      if (r.hasParam(sub) && !allowed.contains(sub)) {
        throw S3Exception.notImplemented(r.method.name() + " on bucket sub-resource ?" + sub);
      }
    }
  }

  private static S3Exception methodNotAllowed(S3Request r) {
    return new S3Exception(S3ErrorCode.METHOD_NOT_ALLOWED,
        "The specified method is not allowed against this resource: " + r.method.name() + " /");
  }
}
